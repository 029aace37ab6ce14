// `try` blocks are not recorded.
use irtrack::tracked;

#[tracked]
fn parse_both(a: &str, b: &str) -> Result<i64, std::num::ParseIntError> {
    let r: Result<i64, std::num::ParseIntError> = try { a.parse::<i64>()? + b.parse::<i64>()? };
    r
}

fn main() {}
