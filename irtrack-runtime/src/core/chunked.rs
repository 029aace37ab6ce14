//! A vector that grows by adding chunks instead of reallocating: recording never copies what
//! it recorded, and a growing trace holds at most one partly filled chunk beyond its data
//! (a reallocating vector briefly holds the old and the new buffer, three times the data).

/// The first chunk's elements: a trace of one call holds a chunk of calls of this size.
const FIRST: usize = 16;
/// Chunks double in size up to this many elements, then stay at it: a trace holds at most
/// this many unused elements per vector (4,096 calls of 32 bytes: 128 KB), where chunks of
/// 65,536 left a trace of 70,000 calls holding 2 MB it never used (`benches/memory.rs`).
const MAX_SHIFT: u32 = 12;
const MAX: usize = 1 << MAX_SHIFT;
/// Elements held by the doubling chunks (16, 32, …, 4,096).
const DOUBLING: usize = FIRST * ((MAX / FIRST) * 2 - 1);
const DOUBLING_CHUNKS: usize = (MAX_SHIFT - FIRST.trailing_zeros() + 1) as usize;

pub(crate) struct Chunked<T> {
    /// The filled chunks, in order: chunk `k` holds [`chunk_capacity`]`(k)` elements.
    full: Vec<Vec<T>>,
    /// The chunk being filled (chunk `full.len()`): element `base + j` is `tail[j]`. Kept
    /// apart from `full` so that a push is one comparison and one `Vec::push`, and a read of a
    /// recent element (the recorder reads the nodes it just wrote) needs no `locate`.
    tail: Vec<T>,
    base: usize,
    /// The tail's length at which a push takes the slow path: its chunk's size, or less
    /// where the limit falls inside it.
    end: usize,
    /// Pushing the element of this index calls [`over_limit`] instead (a budget).
    limit: usize,
    /// Emptied chunks kept by [`clear`](Chunked::clear) for reuse, the next one last.
    spare: Vec<Vec<T>>,
}

/// The payload of the panic that stops a recording when its node budget is spent: the session
/// that set the budget catches it and returns a typed error.
#[derive(Debug)]
pub(crate) struct OverLimit;

/// Stops the recording: unwinds with [`OverLimit`] without running the panic hook (this is not
/// a bug to report, and the session that set the budget catches it).
#[cold]
#[inline(never)]
pub(crate) fn over_limit() -> ! {
    std::panic::resume_unwind(Box::new(OverLimit))
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            full: Vec::new(),
            tail: Vec::new(),
            base: 0,
            end: 0,
            limit: usize::MAX,
            spare: Vec::new(),
        }
    }
}

/// The chunk and offset of element `i`.
#[inline]
fn locate(i: usize) -> (usize, usize) {
    if i < DOUBLING {
        let biased = i + FIRST;
        let k =
            (usize::BITS - 1 - biased.leading_zeros()) as usize - FIRST.trailing_zeros() as usize;
        (k, biased - (FIRST << k))
    } else {
        let j = i - DOUBLING;
        (DOUBLING_CHUNKS + j / MAX, j % MAX)
    }
}

fn chunk_capacity(k: usize) -> usize {
    if k < DOUBLING_CHUNKS {
        FIRST << k
    } else {
        MAX
    }
}

impl<T> Chunked<T> {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.base + self.tail.len()
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, value: T) -> usize {
        self.push_with(|| value)
    }

    /// Pushes the value `make` builds, built where it is stored: a value passed to `push`
    /// is built on the stack first (the slow path needs it too) and read back as a whole,
    /// which, for a value written field by field (a node), is a store-forwarding stall on
    /// every push.
    #[inline(always)]
    pub(crate) fn push_with(&mut self, make: impl FnOnce() -> T) -> usize {
        let j = self.tail.len();
        if j < self.end {
            self.tail.push(make());
            return self.base + j;
        }
        self.push_slow(make())
    }

    /// Pushes `f(x)` for each `x` of `from`; returns the index of the first. One check of room
    /// for them all (a node's references, pushed together), then plain writes.
    #[inline(always)]
    pub(crate) fn extend_map<U: Copy>(&mut self, from: &[U], f: impl Fn(U) -> T) -> usize {
        let j = self.tail.len();
        if j + from.len() <= self.end {
            for &x in from {
                self.tail.push(f(x));
            }
            return self.base + j;
        }
        let start = self.len();
        for &x in from {
            self.push_slow(f(x));
        }
        start
    }

    /// Makes pushing element `n` (the `n + 1`-th) panic with [`OverLimit`]; `usize::MAX`
    /// lifts the limit. The limit lifts itself when it trips, so that what unwinds can still
    /// record.
    pub(crate) fn set_limit(&mut self, n: usize) {
        self.limit = n;
        self.set_end();
    }

    /// Where the tail's fast path stops: at its chunk's end or at the limit.
    fn set_end(&mut self) {
        let chunk = chunk_capacity(self.full.len()).min(self.tail.capacity());
        self.end = chunk.min(self.limit.saturating_sub(self.base));
    }

    #[cold]
    fn push_slow(&mut self, value: T) -> usize {
        let i = self.len();
        if i >= self.limit {
            self.limit = usize::MAX;
            self.set_end();
            over_limit();
        }
        let (k, _) = locate(i);
        if k > self.full.len() || self.tail.capacity() == 0 {
            // The tail is full (or was never given a buffer): it becomes chunk `k - 1`.
            if self.tail.capacity() != 0 {
                self.base += self.tail.len();
                self.full.push(std::mem::take(&mut self.tail));
            }
            let cap = chunk_capacity(k);
            self.tail = match self.spare.pop() {
                Some(c) if c.capacity() >= cap => c,
                _ => Vec::with_capacity(cap),
            };
        }
        self.tail.push(value);
        self.set_end();
        i
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        if i >= self.base {
            return self.tail.get(i - self.base);
        }
        let (k, o) = locate(i);
        self.full.get(k)?.get(o)
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i >= self.base {
            return self.tail.get_mut(i - self.base);
        }
        let (k, o) = locate(i);
        self.full.get_mut(k)?.get_mut(o)
    }

    /// Empties the vector, keeping its chunks for reuse.
    pub(crate) fn clear(&mut self) {
        let mut chunks = std::mem::take(&mut self.full);
        if self.tail.capacity() != 0 {
            chunks.push(std::mem::take(&mut self.tail));
        }
        // Reused in order: chunk 0 is popped first.
        for mut c in chunks.into_iter().rev() {
            c.clear();
            self.spare.push(c);
        }
        self.base = 0;
        self.end = 0;
        self.limit = usize::MAX;
    }

    /// Bytes of the buffers of the chunks in use: emptied chunks kept for reuse (an earlier
    /// trace's, on this thread) are not this vector's size, and a byte budget must not count
    /// them.
    pub(crate) fn capacity_bytes(&self) -> usize {
        let caps = self.full.iter().map(|c| c.capacity());
        (caps.sum::<usize>() + self.tail.capacity()) * std::mem::size_of::<T>()
    }

    /// Bytes of every buffer the vector holds, emptied ones kept for reuse included.
    pub(crate) fn held_bytes(&self) -> usize {
        let spare = self.spare.iter().map(|c| c.capacity()).sum::<usize>();
        self.capacity_bytes() + spare * std::mem::size_of::<T>()
    }

    /// The elements in order (a walk over each chunk: no lookup per element).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.full
            .iter()
            .flat_map(|c| c.iter())
            .chain(self.tail.iter())
    }

    /// The elements `start..start + n` as one slice, when one chunk holds them all (always
    /// but where the range crosses a chunk's end).
    #[inline]
    pub(crate) fn slice(&self, start: usize, n: usize) -> Option<&[T]> {
        if n == 0 {
            return Some(&[]);
        }
        if start + n > self.len() {
            return None;
        }
        if start >= self.base {
            let o = start - self.base;
            return self.tail.get(o..o + n);
        }
        let (k, o) = locate(start);
        self.full.get(k)?.get(o..o + n)
    }

    /// The number of elements before the first for which `before` is false, the elements
    /// being ordered so that it is true for a prefix (a binary search, as the slice method).
    pub(crate) fn partition_point(&self, before: impl Fn(&T) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if before(&self[mid]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Drops the elements from `len` on.
    #[cfg(test)]
    pub(crate) fn truncate(&mut self, len: usize) {
        while self.len() > len {
            if self.tail.is_empty() {
                let Some(last) = self.full.pop() else { break };
                self.base -= last.len();
                self.tail = last;
            }
            self.tail.pop();
        }
        self.set_end();
    }
}

impl<T: Copy> Chunked<T> {
    /// The elements `start..start + n` (which may span chunks).
    pub(crate) fn range(&self, start: usize, n: usize) -> impl Iterator<Item = T> + '_ {
        (start..start + n).filter_map(move |i| self.get(i).copied())
    }
}

impl<T> std::ops::Index<usize> for Chunked<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        match self.get(i) {
            Some(v) => v,
            None => panic!("index {i} out of a chunked vector of {}", self.len()),
        }
    }
}

impl<T> std::ops::IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        let len = self.len();
        match self.get_mut(i) {
            Some(v) => v,
            None => panic!("index {i} out of a chunked vector of {len}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_filled_in_order() {
        let mut prev = (0, 0);
        assert_eq!(locate(0), (0, 0));
        for i in 1..(DOUBLING + 3 * MAX) {
            let (k, o) = locate(i);
            if o == 0 {
                assert_eq!(k, prev.0 + 1, "at {i}");
                assert_eq!(prev.1 + 1, chunk_capacity(prev.0), "at {i}");
            } else {
                assert_eq!((k, o), (prev.0, prev.1 + 1), "at {i}");
            }
            prev = (k, o);
        }
    }

    #[test]
    fn push_get_truncate() {
        let mut v = Chunked::default();
        for i in 0..100_000u32 {
            assert_eq!(v.push(i), i as usize);
        }
        assert_eq!(v.len(), 100_000);
        assert_eq!(v[99_999], 99_999);
        assert_eq!(v.get(100_000), None);
        v.truncate(70);
        assert_eq!(
            v.iter().copied().collect::<Vec<_>>(),
            (0..70).collect::<Vec<_>>()
        );
        v.clear();
        assert_eq!(v.len(), 0);
        v.push(5);
        assert_eq!(v[0], 5);
    }

    #[test]
    fn limit_trips_once_and_cleared_chunks_are_reused() {
        let mut v = Chunked::default();
        v.set_limit(20);
        for i in 0..20u32 {
            v.push(i);
        }
        let tripped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| v.push(20)));
        assert!(tripped.is_err());
        // The limit lifted itself: what unwinds can still record.
        assert_eq!(v.push(20), 20);
        for i in 21..10_000u32 {
            v.push(i);
        }
        let bytes = v.capacity_bytes();
        v.clear();
        assert_eq!(v.capacity_bytes(), 0, "kept chunks are not in use");
        for i in 0..10_000u32 {
            assert_eq!(v.push(i + 1), i as usize);
        }
        assert_eq!(v.capacity_bytes(), bytes, "the kept chunks, in use again");
        assert_eq!(v[9_999], 10_000);
        *v.get_mut(5).unwrap() = 0;
        assert_eq!(v.get(5), Some(&0));
        // Chunk 0 holds 0..16: a slice across its end is refused, one inside it is not.
        assert_eq!(v.slice(14, 2), Some(&[15, 16][..]));
        assert_eq!(v.slice(15, 2), None);
        assert_eq!(v.slice(9_998, 2), Some(&[9_999, 10_000][..]));
        assert_eq!(v.slice(9_999, 2), None);
        assert_eq!(v.iter().count(), 10_000);
        assert_eq!(v.partition_point(|&x| x < 500), 499);
    }
}
