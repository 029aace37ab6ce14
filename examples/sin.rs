//! The smallest trace: `f(x) = sin(x) + x`, and what each node knows.
//!
//! Run with `cargo run --example sin`.

use irtrack::{track, tracked, Arg};

#[tracked]
fn f(x: f64) -> f64 {
    x.sin() + x
}

fn main() {
    let trace = track(f, (1.0,));
    let root = trace.root();
    println!("{}", root.levels(2));

    let plus = root.child(3).expect("f records four nodes");
    let location = plus.location().expect("a child has a location");
    println!("@3 is {:?} at [{location}]", plus.kind());
    println!("  it computed {}::{}", plus.value_text(), plus.type_name());
    let used: Vec<String> = plus
        .arguments()
        .iter()
        .map(|a| match a {
            Arg::Node(n) => format!("@{}", n.position().unwrap_or(0)),
            Arg::Const(c) => format!("⟨{c}⟩"),
        })
        .collect();
    println!("  from {}", used.join(" and "));
    let ir = plus.ir().expect("recorded inside f");
    println!("  the statement it ran: {}", ir[location]);
    println!("\nThe static IR of f:\n{ir}");
}
