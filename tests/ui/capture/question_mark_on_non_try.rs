// `?` on a type that supports no `?` at all.
use irtrack::tracked;

#[tracked]
fn bad(x: f64) -> Result<f64, String> {
    let y = x?;
    Ok(y)
}

fn main() {}
