// A trait method declared with a bound on `Self` (`where Self: Copy`, num-integer's
// `extended_gcd_lcm` with `where Self: Signed`) may be implemented for a type that misses it:
// it just cannot be called there. `#[tracked]` names the method by its trait's path, which
// needs the bound, and cannot see the trait's declaration: the error points at the method.
// Mark that method `#[tracked(primitive)]` (it can never run for this type).
use irtrack::tracked;

pub trait Tr {
    fn only_if_copy(&self) -> i32
    where
        Self: Copy;
    fn plain(&self) -> i32;
}

pub struct NotCopy(i32);

#[tracked]
impl Tr for NotCopy {
    fn only_if_copy(&self) -> i32 {
        self.0
    }
    fn plain(&self) -> i32 {
        self.0 + 1
    }
}

fn main() {}
