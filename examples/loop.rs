use irtrack::{track, tracked};

#[tracked]
fn f(x: f64) -> f64 {
    x.sin() + x
}

#[tracked]
fn h(x: f64, n: i32) -> f64 {
    let mut r = 0.0;
    let mut i = 0;
    while i < n {
        r += x.powi(i);
        i += 1;
    }
    r
}

fn main() {
    let t = track(f, (1.0,));
    println!("{}", t.root().levels(2));
    let t = track(h, (2.0, 2));
    println!("{}", t.root().levels(2));
    println!("{}", t.root().callee_ir().unwrap());
    assert_eq!(h(2.0, 2), 3.0);
}
