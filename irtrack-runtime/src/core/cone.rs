//! Whether orderings met at a tie leave the path an open region around the point. Each says,
//! to first order, that the inputs may move only along directions `d` with `u · d ≥ 0`, where
//! `u` is the slope of the difference of its sides (oriented by what it said). The path holds
//! on a region with an interior near the point — a half-space, a wedge, a quadrant: its
//! one-sided slope is a slope of the function there — exactly when some `d` has `u · d > 0`
//! for every `u`, which (Gordan's theorem) is when 0 is not in the convex hull of the `u`s. Where
//! it is, the orderings together pin the point along some line (`x <= y`, `y <= 0`, `x >= 0`
//! at the origin; `x + y >= y` and `x <= 0`), and the branch's slope is no derivative.

/// What the first-order directions of orderings at a tie say of the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cone {
    /// Some direction keeps every ordering strictly: the path holds on an open region.
    Open,
    /// No direction does: the path is confined, to first order, to a set without interior.
    /// The index is the first ordering with which (with those before it) this happens.
    Pinned(usize),
}

/// Where the norm of the nearest point of the hull, relative to the unit directions, counts as
/// 0: slopes carry rounding, and a wedge this thin is refused rather than trusted.
const FLAT: f64 = 1e-9;

/// Reads `directions` (each a nonzero finite vector; all of one length) in order.
pub(crate) fn cone(directions: &[Vec<f64>]) -> Cone {
    let unit: Vec<Vec<f64>> = directions
        .iter()
        .map(|u| {
            let n = norm(u);
            u.iter().map(|v| v / n).collect()
        })
        .collect();
    if strictly_kept(&unit) || nearest_norm(&unit) > FLAT {
        return Cone::Open;
    }
    // The first prefix that closes it: the hull of a prefix only grows.
    let (mut lo, mut hi) = (0, unit.len() - 1);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if nearest_norm(&unit[..=mid]) > FLAT {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Cone::Pinned(lo)
}

/// A direction that keeps every unit direction strictly, found by the perceptron's updates
/// from their mean (many orderings at independent ties — a ReLU layer at 0 — are settled here
/// in a pass or two, before the nearest-point search, whose corrals grow with their number).
/// `false` says only that none was found.
fn strictly_kept(unit: &[Vec<f64>]) -> bool {
    let n = unit.first().map_or(0, Vec::len);
    let mut d = vec![0.0; n];
    for u in unit {
        for (di, ui) in d.iter_mut().zip(u) {
            *di += ui;
        }
    }
    for _ in 0..(4 * unit.len() + 16) {
        let scale = norm(&d);
        let Some(violated) = unit.iter().find(|u| dot(u, &d) <= 1e-6 * scale) else {
            return scale > 0.0;
        };
        for (di, ui) in d.iter_mut().zip(violated) {
            *di += ui;
        }
    }
    false
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// The norm of the point of the convex hull of `points` nearest the origin, by Wolfe's
/// algorithm (1976): a corral of affinely independent points whose affine hull's nearest point
/// is inside their hull, grown by the point most in the way and shrunk where the affine
/// nearest point leaves the hull. Exact up to rounding, in a finite number of steps; a
/// degenerate corral (rounding) answers 0, which refuses.
fn nearest_norm(points: &[Vec<f64>]) -> f64 {
    let Some(first) = points
        .iter()
        .enumerate()
        .min_by(|a, b| norm(a.1).total_cmp(&norm(b.1)))
        .map(|(i, _)| i)
    else {
        return f64::INFINITY;
    };
    let n = points[0].len();
    let mut corral = vec![first];
    let mut weights = vec![1.0];
    let mut x = points[first].clone();
    for _ in 0..(10 * points.len() + 50) {
        // The point most in the direction of the origin from `x`.
        let (j, xj) = points
            .iter()
            .enumerate()
            .map(|(i, p)| (i, dot(&x, p)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("points is not empty");
        let xx = dot(&x, &x);
        if xx - xj <= 1e-12 * xx.max(1e-300) || corral.contains(&j) {
            return xx.sqrt();
        }
        corral.push(j);
        weights.push(0.0);
        loop {
            let Some(alpha) = affine_nearest(points, &corral) else {
                return 0.0;
            };
            if alpha.iter().all(|&a| a > 1e-14) {
                weights = alpha;
                break;
            }
            // Move from `weights` toward `alpha` until a weight reaches 0; drop it.
            let mut theta = 1.0_f64;
            for (w, a) in weights.iter().zip(&alpha) {
                if *a <= 1e-14 && w - a > 0.0 {
                    theta = theta.min(w / (w - a));
                }
            }
            for (w, a) in weights.iter_mut().zip(&alpha) {
                *w += theta * (a - *w);
            }
            let keep: Vec<bool> = weights.iter().map(|&w| w > 1e-14).collect();
            let mut k = 0;
            corral.retain(|_| {
                k += 1;
                keep[k - 1]
            });
            let mut k = 0;
            weights.retain(|_| {
                k += 1;
                keep[k - 1]
            });
            if corral.is_empty() {
                return 0.0;
            }
            let total: f64 = weights.iter().sum();
            weights.iter_mut().for_each(|w| *w /= total);
        }
        x = vec![0.0; n];
        for (&i, w) in corral.iter().zip(&weights) {
            for (xi, p) in x.iter_mut().zip(&points[i]) {
                *xi += w * p;
            }
        }
    }
    // Did not settle (cycling on rounding): no claim that the region is open.
    0.0
}

/// The weights (summing to 1) of the point of the affine hull of `points[corral]` nearest the
/// origin: `[G 1; 1ᵀ 0] [α; μ] = [0; 1]` with `G` the corral's Gram matrix. `None` where the
/// corral is affinely dependent.
fn affine_nearest(points: &[Vec<f64>], corral: &[usize]) -> Option<Vec<f64>> {
    let m = corral.len();
    let size = m + 1;
    let mut a = vec![vec![0.0; size + 1]; size];
    for (r, &i) in corral.iter().enumerate() {
        for (c, &j) in corral.iter().enumerate() {
            a[r][c] = dot(&points[i], &points[j]);
        }
        a[r][m] = 1.0;
        a[m][r] = 1.0;
    }
    a[m][size] = 1.0;
    // Gaussian elimination with partial pivoting.
    for col in 0..size {
        let pivot = (col..size).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
        if a[pivot][col].abs() < 1e-13 {
            return None;
        }
        a.swap(col, pivot);
        let pivot_row = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                if f != 0.0 {
                    for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                        *x -= f * p;
                    }
                }
            }
        }
    }
    Some((0..m).map(|r| a[r][size] / a[r][r]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_direction_is_a_half_space() {
        assert_eq!(cone(&[vec![0.0, 3.0]]), Cone::Open);
    }

    #[test]
    fn opposite_directions_pin() {
        assert_eq!(cone(&[vec![1.0, -1.0], vec![-2.0, 2.0]]), Cone::Pinned(1));
    }

    #[test]
    fn a_wedge_is_open() {
        // `x * y <= 1` and `y >= 1` at (1, 1).
        assert_eq!(cone(&[vec![-1.0, -1.0], vec![0.0, 1.0]]), Cone::Open);
        // A quadrant, and a thin wedge.
        assert_eq!(cone(&[vec![1.0, 0.0], vec![0.0, 1.0]]), Cone::Open);
        assert_eq!(cone(&[vec![1.0, 0.01], vec![-1.0, 0.01]]), Cone::Open);
    }

    #[test]
    fn three_orderings_pin_where_no_two_do() {
        // `x <= y`, `y <= 0`, `x >= 0` at the origin.
        let d = [vec![-1.0, 1.0], vec![0.0, -1.0], vec![1.0, 0.0]];
        assert_eq!(cone(&d[..2]), Cone::Open);
        assert_eq!(cone(&d), Cone::Pinned(2));
        // The same in another order, with a direction that does not matter first.
        let d = [
            vec![0.0, 0.0, 1.0],
            vec![1.0, 0.0, 0.0],
            vec![-1.0, 1.0, 0.0],
            vec![0.0, -1.0, 0.0],
        ];
        assert_eq!(cone(&d), Cone::Pinned(3));
    }

    /// In the plane, directions leave an open region exactly when some gap between their
    /// angles, around the circle, is wider than a half-turn: an independent truth, checked on
    /// seeded random sets (wide margins only, so that rounding cannot decide).
    #[test]
    fn planar_sets_agree_with_their_angles() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut checked = 0;
        for _ in 0..2000 {
            let k = 1 + (next() * 6.0) as usize;
            let spread = 0.5 + next() * 1.5;
            let angles: Vec<f64> = (0..k)
                .map(|_| next() * std::f64::consts::TAU * spread)
                .collect();
            let mut sorted: Vec<f64> = angles
                .iter()
                .map(|a| a.rem_euclid(std::f64::consts::TAU))
                .collect();
            sorted.sort_by(f64::total_cmp);
            let widest = (0..k)
                .map(|i| {
                    let next = if i + 1 < k {
                        sorted[i + 1]
                    } else {
                        sorted[0] + std::f64::consts::TAU
                    };
                    next - sorted[i]
                })
                .fold(0.0_f64, f64::max);
            if (widest - std::f64::consts::PI).abs() < 1e-3 {
                continue;
            }
            let d: Vec<Vec<f64>> = angles
                .iter()
                .map(|a| {
                    let r = 0.1 + next() * 10.0;
                    vec![r * a.cos(), r * a.sin()]
                })
                .collect();
            let open = widest > std::f64::consts::PI;
            assert_eq!(cone(&d) == Cone::Open, open, "{angles:?}");
            checked += 1;
        }
        assert!(checked > 1900);
    }

    #[test]
    fn many_directions_around_a_point_pin() {
        let d: Vec<Vec<f64>> = (0..7)
            .map(|k| {
                let t = k as f64 * std::f64::consts::TAU / 7.0;
                vec![t.cos(), t.sin(), 0.5]
            })
            .collect();
        // All have a positive third component: open.
        assert_eq!(cone(&d), Cone::Open);
        let flat: Vec<Vec<f64>> = d.iter().map(|u| vec![u[0], u[1], 0.0]).collect();
        assert!(matches!(cone(&flat), Cone::Pinned(k) if k >= 2));
        // Collinear repeats of one direction.
        assert_eq!(
            cone(&[vec![1.0, 1.0], vec![2.0, 2.0], vec![3.0, 3.0]]),
            Cone::Open
        );
    }
}
