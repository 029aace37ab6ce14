//! Running a program: check the arguments, run the operations in order into registers,
//! check each guard when its condition is computed.

use super::{Args, InputSlot, Like, OpKind, Program, ReplayError, Src, Step};
use crate::core::value::short_type_name;
use crate::core::value::Value;
use crate::view::operation::run_operation;

impl Program {
    /// Runs the program on `args` (every root argument, static ones included, as the Rust
    /// function takes them) and returns its result.
    ///
    /// # Errors
    /// [`ReplayError::Static`] when a static argument differs from the recorded one (bit for
    /// bit), [`ReplayError::StaticUnproven`] when irtrack cannot prove it the same (a
    /// snapshot of a user's type, a value known by its text: [`call_dynamic`](Program::call_dynamic) passes the
    /// recorded value instead),
    /// [`ReplayError::Type`] when a dynamic one has another type, [`ReplayError::Guard`] when
    /// the inputs take another path than the recorded one, [`ReplayError::Eval`] when an
    /// operation fails on the new values (integer overflow, an index out of bounds).
    pub fn call(&self, args: impl Args) -> Result<Value, ReplayError> {
        // On the stack: a call of a compiled gradient is a microsecond (no tuple of `Args` has
        // more than six).
        let mut statics: [Option<&Value>; 6] = [None; 6];
        for (s, slot) in statics.iter_mut().zip(&self.inputs) {
            if let InputSlot::Static(v) = slot {
                *s = Some(v);
            }
        }
        let args = args.into_values_like(&statics[..self.inputs.len().min(6)]);
        self.check(&args, false)?;
        self.run_checked(args)
    }

    /// Runs the program of a `switch` branch on the arguments its calling program passes: its
    /// static arguments are that program's constants, recorded in the same run as the ones
    /// this program holds (or cloned from them to trace a new path), so one that irtrack
    /// cannot compare bit for bit is checked as an edge of a program is, by its text.
    pub(crate) fn call_passed(&self, args: Vec<Value>) -> Result<Value, ReplayError> {
        self.check(&args, true)?;
        self.run_checked(args)
    }

    fn run_checked(&self, args: Vec<Value>) -> Result<Value, ReplayError> {
        // A call that fails (at a guard, most often) is followed by another attempt (another
        // path, a run of the function): it leaves injected and collected checkpoints as it
        // found them.
        super::checkpoint::attempt(|| {
            self.watch_limits(&args, || match &self.fast {
                Some(fast) => fast.run(self, &args),
                None => self.call_general(&args),
            })
        })
    }

    /// Runs `run`, and where one of its absorbing products took ∞ or NaN into a zero, checks
    /// that zero was not only a limit ([`ReplayError::Indeterminate`], `program::limit`).
    fn watch_limits(
        &self,
        args: &[Value],
        run: impl FnOnce() -> Result<Value, ReplayError>,
    ) -> Result<Value, ReplayError> {
        use crate::core::eval::{note_absorbed, take_absorbed};
        // A program run inside an operation of another keeps the outer one's note.
        let outer = take_absorbed();
        let out = run();
        let absorbed = take_absorbed();
        if outer {
            note_absorbed();
        }
        let v = out?;
        // At a tie of an ordering of the recorded function, the path may have no derivative:
        // said before any limit met on the way (it decides whether there is a number at all).
        if let Some(e) = self.path_error(args) {
            return Err(e);
        }
        // A derivative's NaN made from numbers (`program::limit`): looked for only where the
        // result has one, and said first (where it was born is the plainest account of it).
        if let Some(e) = self.nan_error(args, &v) {
            return Err(e);
        }
        let at_infinity = self.zero_at_infinity(args, &v);
        if at_infinity || self.limits_to_check(absorbed, &v) {
            if let Some(e) = self.limit_error(args, at_infinity) {
                return Err(e);
            }
        }
        Ok(v)
    }

    /// Runs the program as [`call`](Program::call) does, but through the general evaluator
    /// over values even where `call` uses its compiled form (programs whose values are all
    /// scalars): the reference the compiled form is tested against.
    ///
    /// # Errors
    /// As [`call`](Program::call).
    pub fn call_interpreted(&self, args: impl Args) -> Result<Value, ReplayError> {
        let args = args.into_values();
        self.check(&args, false)?;
        super::checkpoint::attempt(|| self.watch_limits(&args, || self.call_general(&args)))
    }

    /// Runs the program through the general evaluator, on checked arguments.
    pub(crate) fn call_general(&self, args: &[Value]) -> Result<Value, ReplayError> {
        self.evaluate(args, &mut |_, _, _| {})
    }

    /// The first operation that makes a NaN from operands that have none (`∞ − ∞`, `0 / 0`,
    /// `∞ · 0`) when the program runs on `args`, as its origin and its text: where a
    /// derivative program's NaN was born (`crate::diff`). `None` when there is none, or the
    /// program fails.
    pub(crate) fn nan_birth(&self, args: &[Value]) -> Option<(super::Origin, String)> {
        let op = &self.ops[self.nan_born(args)?];
        Some((op.origin.clone(), op.kind.to_string()))
    }

    /// The index of the first operation that makes a NaN from operands that have none when
    /// the program runs on `args` (see [`nan_birth`](Program::nan_birth)). A NaN constant
    /// operand counts as made there: building a program folds an operation of constants into
    /// its value (`ln` of a constant -2 in the slope of `(-2.0).powf(x)`), whose NaN no
    /// operation would otherwise show born.
    pub(super) fn nan_born(&self, args: &[Value]) -> Option<usize> {
        let has_nan = |v: &Value| v.any_float(f64::is_nan);
        let mut born = None;
        let _ = self.evaluate(args, &mut |k, operands, result| {
            let inherited = || {
                self.ops[k]
                    .args
                    .iter()
                    .zip(operands)
                    .any(|(s, v)| !matches!(s, Src::Const(_)) && has_nan(v))
            };
            if born.is_none() && has_nan(result) && !inherited() {
                born = Some(k);
            }
        });
        born
    }

    /// The general evaluator: `seen` is shown each operation's index, operands and result.
    pub(super) fn evaluate(
        &self,
        args: &[Value],
        seen: &mut dyn FnMut(usize, &[Value], &Value),
    ) -> Result<Value, ReplayError> {
        let mut regs: Vec<Value> = Vec::with_capacity(self.ops.len());
        let read = |s: &Src, regs: &[Value]| -> Value {
            match s {
                Src::Input(k) => args[*k].clone(),
                Src::Op(k) => regs[*k].clone(),
                Src::Const(v) => v.clone(),
            }
        };
        let mut operands = Vec::new();
        for step in &self.steps {
            match *step {
                Step::Op(k) => {
                    let op = &self.ops[k];
                    operands.clear();
                    operands.extend(op.args.iter().map(|a| read(a, &regs)));
                    let v = match &op.kind {
                        OpKind::Run(o) => {
                            run_operation(*o, &operands).map_err(|error| ReplayError::Eval {
                                at: op.origin.clone(),
                                error,
                            })?
                        }
                        OpKind::Control(c) => c.run(&operands, &op.origin)?,
                        // Building refuses a program that would run one.
                        OpKind::Tuple(e) => return Err((**e).clone()),
                    };
                    seen(k, &operands, &v);
                    regs.push(v);
                }
                Step::Guard(g) => {
                    let guard = &self.guards[g];
                    let v = read(&guard.condition, &regs);
                    if v.downcast_ref::<bool>() != Some(&guard.expected) {
                        return Err(ReplayError::Guard {
                            at: guard.origin.clone(),
                            condition: super::guard_condition(guard.condition_at, guard.expected),
                        });
                    }
                }
            }
        }
        Ok(read(&self.output, &regs))
    }

    /// Runs the program on its dynamic arguments alone, in order; the static ones keep their
    /// recorded values (for static arguments that cannot be passed again, such as an RNG
    /// whose draws the program holds as constants, or a user's type that irtrack cannot
    /// compare: [`ReplayError::StaticUnproven`] from [`call`](Program::call)).
    ///
    /// # Errors
    /// As [`call`](Program::call).
    pub fn call_dynamic(&self, dynamic: impl Args) -> Result<Value, ReplayError> {
        let given = dynamic.into_values();
        let expected = self
            .inputs
            .iter()
            .filter(|i| matches!(i, InputSlot::Dynamic { .. }))
            .count();
        if given.len() != expected {
            return Err(ReplayError::Arity {
                expected,
                got: given.len(),
            });
        }
        let mut given = given.into_iter();
        let args = self
            .inputs
            .iter()
            .map(|slot| match slot {
                InputSlot::Static(v) => v.clone(),
                InputSlot::Dynamic { .. } => given.next().expect("counted above"),
            })
            .collect::<Vec<_>>();
        self.call(args)
    }

    /// Checks the arguments' number, the dynamic ones' types and the static ones' values
    /// (`passed`: as values passed on from a calling program's constants, see
    /// [`call_passed`](Program::call_passed)).
    fn check(&self, args: &[Value], passed: bool) -> Result<(), ReplayError> {
        if args.len() != self.inputs.len() {
            return Err(ReplayError::Arity {
                expected: self.inputs.len(),
                got: args.len(),
            });
        }
        for (index, (slot, given)) in self.inputs.iter().zip(args).enumerate() {
            match slot {
                InputSlot::Static(recorded) => match recorded.exact_eq(given) {
                    Some(true) => {}
                    None if passed
                        && !recorded.is_opaque()
                        && !given.is_opaque()
                        && recorded.to_string() == given.to_string() => {}
                    Some(false) if !recorded.by_value().same_type(&given.by_value()) => {
                        return Err(ReplayError::StaticType {
                            index,
                            recorded: short_type_name(recorded.type_name()),
                            given: short_type_name(given.type_name()),
                        });
                    }
                    Some(false) => {
                        // Told apart by their types where they print alike (`3` and `3usize`).
                        let (mut r, mut g) = (recorded.to_string(), given.to_string());
                        if r == g {
                            r = format!("{r}::{}", recorded.type_name());
                            g = format!("{g}::{}", given.type_name());
                        }
                        return Err(ReplayError::Static {
                            index,
                            recorded: r,
                            given: g,
                        });
                    }
                    None => {
                        return Err(ReplayError::StaticUnproven {
                            index,
                            type_name: given.type_name().to_string(),
                            known: if given.is_opaque() || recorded.is_opaque() {
                                "only its type"
                            } else if given.is_text() || recorded.is_text() {
                                "only its `Debug` text"
                            } else {
                                "a clone, but no comparison that proves two values equal \
                                 bit for bit (its `Debug` text is no proof, and a \
                                 `PartialEq` calls `-0.0` and `0.0` equal)"
                            },
                        })
                    }
                },
                InputSlot::Dynamic {
                    type_name,
                    length,
                    like,
                } => {
                    if referent(given.type_name()) != referent(type_name) {
                        return Err(ReplayError::Type {
                            index,
                            expected: type_name.clone(),
                            given: given.type_name().to_string(),
                        });
                    }
                    if let Some(like) = like {
                        check_like(index, like, given, args)?;
                    }
                    // The path read the vector's length: another length takes another path.
                    if let Some((n, at)) = length {
                        if given.floats().map(|f| f.len()) != Some(*n) {
                            return Err(ReplayError::Guard {
                                at: at.clone(),
                                condition: format!("len(argument {}) == {n}", index + 1),
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// `Err` when a derivative's direction or cotangent `given` (argument `index`) has not the shape
/// `like` asks for.
fn check_like(index: usize, like: &Like, given: &Value, args: &[Value]) -> Result<(), ReplayError> {
    // No allocation on the way that passes: a compiled gradient checks this at every call.
    let of_input;
    let want: &[usize] = match like {
        Like::Input(k) => match args.get(*k).and_then(shape) {
            Some(s) => {
                of_input = s;
                &of_input
            }
            None => return Ok(()),
        },
        Like::Shape(s) => s,
    };
    let got = shape(given);
    if got.as_deref() == Some(want) {
        return Ok(());
    }
    let of = match like {
        Like::Input(k) => format!(", as argument {}", k + 1),
        Like::Shape(_) => ", as the recorded output".to_string(),
    };
    Err(ReplayError::Shape {
        index,
        expected: format!("{}{of}", describe(Some(&want.to_vec()))),
        given: describe(got.as_ref()),
    })
}

/// `float`, `vector of 3`, `array [2, 2]`, for a shape read by [`shape`].
fn describe(s: Option<&Vec<usize>>) -> String {
    match s.map(Vec::as_slice) {
        Some([]) => "float".into(),
        Some([n]) => format!("vector of {n}"),
        Some(d) => format!("array {d:?}"),
        None => "value of no float shape".into(),
    }
}

/// The shape of a float, a vector of floats, an array of floats.
fn shape(v: &Value) -> Option<Vec<usize>> {
    if v.as_f64().is_some() {
        return Some(Vec::new());
    }
    #[cfg(feature = "ndarray")]
    if let Some(a) = crate::core::arrays::array_primal(v) {
        return Some(a.shape().to_vec());
    }
    v.floats().map(|x| vec![x.len()])
}

/// A type name without the references around it: a program takes `x` for an argument recorded
/// as `&x`.
pub(crate) fn referent(name: &str) -> &str {
    let mut n = name.trim();
    loop {
        if let Some(rest) = n.strip_prefix("&mut ") {
            n = rest.trim_start();
        } else if let Some(rest) = n.strip_prefix('&') {
            n = rest.trim_start();
        } else {
            return n;
        }
    }
}
