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
    chunks: Vec<Vec<T>>,
    len: usize,
    /// The chunk being filled, and how many elements still fit in it (never past `limit`, so
    /// the fast path needs no check of its own).
    current: usize,
    room: usize,
    /// Pushing the element of this index calls [`over_limit`] instead (a budget).
    limit: usize,
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
            chunks: Vec::new(),
            len: 0,
            current: 0,
            room: 0,
            limit: usize::MAX,
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
        self.len
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
        let i = self.len;
        if self.room > 0 {
            let chunk = &mut self.chunks[self.current];
            // Always so while there is room; said here, it lets the compiler drop `push`'s
            // growing path.
            if chunk.len() < chunk.capacity() {
                chunk.push(make());
                self.room -= 1;
                self.len += 1;
                return i;
            }
        }
        self.push_slow(make())
    }

    /// Makes pushing element `n` (the `n + 1`-th) panic with [`OverLimit`]; `usize::MAX`
    /// lifts the limit. The limit lifts itself when it trips, so that what unwinds can still
    /// record.
    pub(crate) fn set_limit(&mut self, n: usize) {
        self.limit = n;
        self.room = self.room.min(n.saturating_sub(self.len));
    }

    #[cold]
    fn push_slow(&mut self, value: T) -> usize {
        let i = self.len;
        if i >= self.limit {
            self.limit = usize::MAX;
            over_limit();
        }
        let (k, _) = locate(i);
        if k >= self.chunks.len() {
            self.grow(k);
        }
        // `locate` fills chunks in order, so the element goes at the end of chunk `k`.
        self.chunks[k].push(value);
        self.current = k;
        self.room =
            (chunk_capacity(k) - self.chunks[k].len()).min(self.limit.saturating_sub(self.len + 1));
        self.len += 1;
        i
    }

    #[cold]
    fn grow(&mut self, k: usize) {
        while self.chunks.len() <= k {
            let cap = chunk_capacity(self.chunks.len());
            self.chunks.push(Vec::with_capacity(cap));
        }
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len {
            return None;
        }
        let (k, o) = locate(i);
        self.chunks.get(k)?.get(o)
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i >= self.len {
            return None;
        }
        let (k, o) = locate(i);
        self.chunks.get_mut(k)?.get_mut(o)
    }

    /// Empties the vector, keeping its chunks for reuse.
    pub(crate) fn clear(&mut self) {
        for c in &mut self.chunks {
            c.clear();
        }
        self.len = 0;
        self.current = 0;
        self.room = 0;
        self.limit = usize::MAX;
    }

    /// Bytes of the chunks' buffers.
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.chunks.iter().map(|c| c.capacity()).sum::<usize>() * std::mem::size_of::<T>()
    }

    /// The elements in order (a walk over each chunk: no lookup per element).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// The elements `start..start + n` as one slice, when one chunk holds them all (always
    /// but where the range crosses a chunk's end).
    #[inline]
    pub(crate) fn slice(&self, start: usize, n: usize) -> Option<&[T]> {
        if n == 0 {
            return Some(&[]);
        }
        if start + n > self.len {
            return None;
        }
        let (k, o) = locate(start);
        self.chunks.get(k)?.get(o..o + n)
    }

    /// The number of elements before the first for which `before` is false, the elements
    /// being ordered so that it is true for a prefix (a binary search, as the slice method).
    pub(crate) fn partition_point(&self, before: impl Fn(&T) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len);
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
        while self.len > len {
            let (k, _) = locate(self.len - 1);
            self.chunks[k].pop();
            self.len -= 1;
        }
        self.room = 0;
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
            None => panic!("index {i} out of a chunked vector of {}", self.len),
        }
    }
}

impl<T> std::ops::IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        let len = self.len;
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
}
