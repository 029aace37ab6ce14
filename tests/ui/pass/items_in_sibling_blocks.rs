// Two blocks of the body each define an item of the same name: items in inner blocks keep
// their block scope (they were once all hoisted to the top, where the two `K`s collided).
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
