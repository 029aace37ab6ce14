// `__irtrack_result` and `__irtrack_try` are hygienic too.
use irtrack::tracked;

#[tracked]
fn parse(s: &str) -> Result<i64, std::num::ParseIntError> {
    let n = s.parse::<i64>()?;
    let _ = (&__irtrack_try, &__irtrack_result);
    Ok(n)
}

fn main() {}
