//! The runtime's layers import only downward (docs/architecture.md): `core` ← `record` ←
//! `view` ← {`export`, `grad`, `program`} ← `diff`. A file that imports a layer above its own
//! fails here, naming the file and the line.

use std::path::Path;

const LAYERS: [(&str, &[&str]); 8] = [
    (
        "core",
        &["record", "view", "export", "grad", "program", "ppl", "diff"],
    ),
    (
        "record",
        &["view", "export", "grad", "program", "ppl", "diff"],
    ),
    ("view", &["export", "grad", "program", "ppl", "diff"]),
    ("export", &["grad", "program", "ppl", "diff"]),
    ("grad", &["export", "program", "ppl", "diff"]),
    ("program", &["export", "grad", "ppl", "diff"]),
    ("ppl", &[]),
    ("diff", &["export", "ppl"]),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the runtime's sources") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn runtime_layers_import_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("irtrack-runtime/src");
    let mut problems = Vec::new();
    for (layer, above) in LAYERS {
        let mut files = Vec::new();
        rust_files(&src.join(layer), &mut files);
        assert!(!files.is_empty(), "no files in the `{layer}` layer");
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a source file");
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                for upper in above {
                    if code.contains(&format!("crate::{upper}::")) {
                        problems.push(format!(
                            "{}:{}: `{layer}` uses `crate::{upper}`",
                            file.display(),
                            n + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
