//! Compact source text of tokens, for the heads of IR entries (`Vec2::new`, `Some(v)`,
//! `as f32`): what a reader of the listing expects to see, without `quote`'s spacing.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;

pub fn text(t: &impl ToTokens) -> String {
    let mut out = String::new();
    write(&mut out, t.to_token_stream());
    out
}

fn write(out: &mut String, ts: TokenStream) {
    let mut prev_joint = false;
    for tt in ts {
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                if g.delimiter() == Delimiter::Brace {
                    space(out);
                }
                out.push_str(open);
                write(out, g.stream());
                out.push_str(close);
                prev_joint = false;
            }
            TokenTree::Punct(p) => {
                let c = p.as_char();
                let tight = matches!(c, ',' | ';' | '.' | ':' | '?' | '>' | '<' | '!')
                    || prev_joint
                    || out.ends_with(['(', '[', '&', '*', '-', '.', '<']);
                let spaced = !tight || (c == ':' && !prev_joint && p.spacing() == Spacing::Alone);
                if spaced && !matches!(c, ':' | ',' | ';' | '.' | '?') {
                    space(out);
                }
                out.push(c);
                if c == ','
                    || c == ';'
                    || (c == ':' && p.spacing() == Spacing::Alone && !prev_joint)
                {
                    out.push(' ');
                }
                prev_joint = p.spacing() == Spacing::Joint;
            }
            other => {
                let s = other.to_string();
                if !prev_joint || !out.ends_with([':', '.']) {
                    space(out);
                }
                out.push_str(&s);
                prev_joint = false;
            }
        }
    }
}

fn space(out: &mut String) {
    if out.ends_with("..") || out.ends_with("..=") {
        return;
    }
    let last = out.chars().last();
    if let Some(c) = last {
        if !matches!(
            c,
            ' ' | '(' | '[' | '&' | '*' | '!' | '.' | '<' | '\'' | '-'
        ) && !out.ends_with("::")
        {
            out.push(' ');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::text;
    use syn::parse_quote;

    #[test]
    fn heads_read_like_source() {
        let e: syn::Expr = parse_quote!(Vec2::new);
        assert_eq!(text(&e), "Vec2::new");
        let p: syn::Pat = parse_quote!(Some(v));
        assert_eq!(text(&p), "Some(v)");
        let p: syn::Pat = parse_quote!(Shape::Rect { w, h: 2 });
        assert_eq!(text(&p), "Shape::Rect { w, h: 2 }");
        let t: syn::Type = parse_quote!(Vec<f64>);
        assert_eq!(text(&t), "Vec<f64>");
        let e: syn::Expr = parse_quote!(self.v[i]);
        assert_eq!(text(&e), "self.v[i]");
        let e: syn::Expr = parse_quote!(x::<f64>);
        assert_eq!(text(&e), "x::<f64>");
        let p: syn::Pat = parse_quote!(Err(_) | None);
        assert_eq!(text(&p), "Err(_) | None");
        let p: syn::Pat = parse_quote!(0..=9);
        assert_eq!(text(&p), "0..=9");
        let e: syn::Expr = parse_quote!(-1.5);
        assert_eq!(text(&e), "-1.5");
    }
}
