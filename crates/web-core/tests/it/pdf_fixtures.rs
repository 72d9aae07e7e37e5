//! PDF files written by the tests themselves: a minimal writer with true offsets, and
//! hostile documents that once took the reader's process down or kept it working long
//! after its call ended. Shared by the library's tests and the binary's (which include
//! this file by path), so both read the very same files.

#![allow(dead_code)]

/// A minimal PDF writer: numbered objects, a cross-reference table with true offsets,
/// a trailer.
#[derive(Default)]
pub struct Writer {
    /// The objects' bodies, object `n` at index `n - 1`.
    pub objects: Vec<Vec<u8>>,
    /// The catalog's number.
    pub root: usize,
    /// The document information dictionary's number.
    pub info: Option<usize>,
    /// The encryption dictionary's number.
    pub encrypt: Option<usize>,
}

impl Writer {
    /// Adds an object (its body, without `N 0 obj`) and returns its number.
    pub fn add(&mut self, body: impl Into<Vec<u8>>) -> usize {
        self.objects.push(body.into());
        self.objects.len()
    }

    /// Adds a stream object with `dict` entries (without `/Length`).
    pub fn stream(&mut self, dict: &str, data: &[u8]) -> usize {
        let mut body = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
        body.extend_from_slice(data);
        body.extend_from_slice(b"\nendstream");
        self.add(body)
    }

    /// The file, with object `self.root` as the catalog.
    pub fn finish(&self) -> Vec<u8> {
        let root = self.root;
        let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in self.objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        let xref = out.len();
        out.extend_from_slice(
            format!("xref\n0 {}\n0000000000 65535 f \n", self.objects.len() + 1).as_bytes(),
        );
        for offset in offsets {
            out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
        }
        let mut trailer = format!("<< /Size {} /Root {root} 0 R", self.objects.len() + 1);
        if let Some(info) = self.info {
            trailer.push_str(&format!(" /Info {info} 0 R"));
        }
        if let Some(encrypt) = self.encrypt {
            trailer.push_str(&format!(
                " /Encrypt {encrypt} 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]"
            ));
        }
        trailer.push_str(" >>");
        out.extend_from_slice(format!("trailer\n{trailer}\nstartxref\n{xref}\n%%EOF\n").as_bytes());
        out
    }
}

/// A one-page document: object 1 is Helvetica (`/F1`), `objects` follow (numbered from
/// 2), then the page, whose `/Contents` is `contents` (for example `[2 0 R 2 0 R]`) and
/// whose resources hold `/F1` and the extra `resources` entries.
fn one_page(objects: &[Vec<u8>], contents: &str, resources: &str) -> Vec<u8> {
    let mut w = Writer::default();
    w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
    for object in objects {
        w.add(object.clone());
    }
    let pages_id = w.objects.len() + 3;
    let page = w.add(format!(
        "<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 1 0 R >> {resources} >> /Contents {contents} >>"
    ));
    let catalog = w.add(format!("<< /Type /Catalog /Pages {pages_id} 0 R >>"));
    let pages = w.add(format!("<< /Type /Pages /Kids [{page} 0 R] /Count 1 >>"));
    assert_eq!(pages, pages_id, "the fixture's object numbering");
    w.root = catalog;
    w.finish()
}

/// A stream object's body (`<< /Length N >> stream … endstream`), uncompressed.
fn stream_body(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut body = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    body.extend_from_slice(data);
    body.extend_from_slice(b"\nendstream");
    body
}

/// A page whose `/Contents` names one stream of `stream_bytes` (white space, then a line
/// of text) `times` times: the reader decodes and appends every reference, so the file
/// asks for `times` × `stream_bytes` of memory.
pub fn repeated_contents(stream_bytes: usize, times: usize) -> Vec<u8> {
    let mut data = vec![b' '; stream_bytes];
    data.extend_from_slice(b"\nBT /F1 12 Tf 72 700 Td (repeated) Tj ET\n");
    let refs = "2 0 R ".repeat(times);
    one_page(&[stream_body("", &data)], &format!("[{refs}]"), "")
}

/// A page drawing one line of `glyphs` glyphs after a first glyph far to its right, so
/// that each glyph lands between the line's ends (a layout that looks at every glyph
/// of the line for each new one is quadratic in it).
pub fn long_line(glyphs: usize) -> Vec<u8> {
    let mut data = b"BT /F1 1 Tf 10000000 700 Td (X) Tj -10000000 0 Td (".to_vec();
    data.extend(std::iter::repeat_n(b'a', glyphs));
    data.extend_from_slice(b") Tj ET\n");
    one_page(&[stream_body("", &data)], "2 0 R", "")
}

/// A page drawing form `/X{depth}` once, each form `/Xk` drawing `/X{k-1}` `fan_out`
/// times and `/X0` one word: `fan_out` to the power `depth` words from a few kilobytes.
pub fn forms_drawing_forms(fan_out: usize, depth: usize) -> Vec<u8> {
    // Object 1 is the font, object k + 2 the form /Xk, then the page's content.
    let mut objects = vec![stream_body(
        "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 1 0 R >> >>",
        b"BT /F1 12 Tf 72 700 Td (form) Tj ET",
    )];
    for k in 1..=depth {
        let draw = format!("/X{} Do\n", k - 1).repeat(fan_out);
        objects.push(stream_body(
            &format!(
                "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 1 0 R >> /XObject << /X{} {} 0 R >> >>",
                k - 1,
                k + 1
            ),
            draw.as_bytes(),
        ));
    }
    objects.push(stream_body("", format!("/X{depth} Do").as_bytes()));
    one_page(
        &objects,
        &format!("{} 0 R", depth + 3),
        &format!("/XObject << /X{depth} {} 0 R >>", depth + 2),
    )
}
