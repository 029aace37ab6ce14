// `.await` needs an async context, which a tracked function is not.
use irtrack::tracked;

async fn fetch() -> f64 {
    1.0
}

#[tracked]
fn wait() -> f64 {
    fetch().await
}

fn main() {}
