// KNOWN BUG: this is valid Rust and must compile; move it to `pass/` once fixed.
// Two blocks of the body each define an item of the same name. `#[tracked]` hoists every item
// of the body, at any depth, to the top of the function, so the two `K`s collide (and an item
// in an inner block would no longer be scoped to that block).
use irtrack::tracked;

#[tracked]
fn pick(flag: bool) -> i32 {
    if flag {
        const K: i32 = 1;
        K
    } else {
        const K: i32 = 2;
        K
    }
}

fn main() {
    assert_eq!(pick(true), 1);
    assert_eq!(pick(false), 2);
}
