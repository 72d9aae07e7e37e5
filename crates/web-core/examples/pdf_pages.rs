//! Reads PDF files with the PDF reader a fetch uses and writes each one's text to a
//! directory, for `bench/pdf.sh`: one line per file on stdout, `NAME<TAB>PAGES<TAB>CPU
//! SECONDS<TAB>ok|the failure`, the time measured around the reading alone.
//!
//! Usage: `pdf_pages OUT_DIR FILE…`; the text of `a.pdf` goes to `OUT_DIR/a.pdf.txt`.

use std::path::Path;
use std::time::Instant;

use mcp_web_core::extract::pdf::{Limits, read};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(out_dir) = args.next() else {
        return Err("usage: pdf_pages OUT_DIR FILE…".into());
    };
    for file in args {
        let bytes = std::fs::read(&file)?;
        let name = Path::new(&file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.clone());
        let started = Instant::now();
        let result = read(&bytes, &Limits::new(20 << 20, None));
        let seconds = started.elapsed().as_secs_f64();
        let line = match result {
            Ok(pdf) => {
                std::fs::write(Path::new(&out_dir).join(format!("{name}.txt")), &pdf.text)?;
                format!("{name}\t{}\t{seconds:.4}\tok", pdf.pages)
            }
            Err(failure) => format!("{name}\t0\t{seconds:.4}\t{failure:?}"),
        };
        #[expect(clippy::print_stdout, reason = "the example's output")]
        {
            println!("{line}");
        }
    }
    Ok(())
}
