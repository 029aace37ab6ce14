// Any other item is rejected with the same message, pointing at the item.
use irtrack::tracked;

#[tracked]
static SCALE: f64 = 2.0;

fn main() {}
