//! Bytes to UTF-8 as a browser decides the encoding: BOM, then the Content-Type
//! charset, then a `<meta>` prescan of the head (HTML only), then UTF-8 when the bytes
//! are UTF-8, then detection.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};

/// Where the encoding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A byte-order mark.
    Bom,
    /// The `charset` parameter of Content-Type.
    Header,
    /// A `<meta charset>` or `http-equiv` declaration.
    Meta,
    /// Guessed from the bytes.
    Detected,
    /// JSON is UTF-8 by definition (RFC 8259).
    Json,
}

/// Decodes `bytes` to UTF-8. `truncated` says the bytes are a prefix cut by a cap: a
/// multi-byte character cut in two at the end is dropped instead of becoming U+FFFD.
/// Returns the text, the encoding used and where it came from.
pub fn decode(
    bytes: &[u8],
    header_charset: Option<&str>,
    html: bool,
    json: bool,
    truncated: bool,
) -> (String, &'static Encoding, Source) {
    let (encoding, source, skip) = choose(bytes, header_charset, html, json, truncated);
    let body = bytes.get(skip..).unwrap_or_default();
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut text = String::with_capacity(
        decoder
            .max_utf8_buffer_length(body.len())
            .unwrap_or(body.len()),
    );
    let (_, _, _) = decoder.decode_to_string(body, &mut text, !truncated);
    // The room asked for is the worst case (up to three times the bytes): a page keeps
    // only what its text needs.
    text.shrink_to_fit();
    (text, encoding, source)
}

/// Decodes `bytes` as [`decode`] does, taking them: bytes that are UTF-8 already (the
/// usual case) become the text without a copy, so a body is held once, not twice, while
/// it is decoded. The text's room is its length.
pub fn decode_owned(
    bytes: Vec<u8>,
    header_charset: Option<&str>,
    html: bool,
    json: bool,
    truncated: bool,
) -> (String, &'static Encoding, Source) {
    let (encoding, source, skip) = choose(&bytes, header_charset, html, json, truncated);
    if encoding == UTF_8 && skip == 0 {
        match String::from_utf8(bytes) {
            Ok(mut text) => {
                text.shrink_to_fit();
                return (text, encoding, source);
            }
            Err(e) if truncated && e.utf8_error().error_len().is_none() => {
                // A character cut in two by the cap at the end: dropped, as decoding
                // a truncated prefix does.
                let valid = e.utf8_error().valid_up_to();
                let mut bytes = e.into_bytes();
                bytes.truncate(valid);
                let mut text = String::from_utf8(bytes).unwrap_or_default();
                text.shrink_to_fit();
                return (text, encoding, source);
            }
            Err(e) => return decode(&e.into_bytes(), header_charset, html, json, truncated),
        }
    }
    decode(&bytes, header_charset, html, json, truncated)
}

/// The encoding of `bytes` as [`decode`] decides it, where that came from, and the length
/// of the byte-order mark to skip.
fn choose(
    bytes: &[u8],
    header_charset: Option<&str>,
    html: bool,
    json: bool,
    truncated: bool,
) -> (&'static Encoding, Source, usize) {
    let (encoding, source, skip) = if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        (enc, Source::Bom, bom_len)
    } else if let Some(enc) = header_charset.and_then(|c| Encoding::for_label(c.trim().as_bytes()))
    {
        (enc, Source::Header, 0)
    } else if json {
        (UTF_8, Source::Json, 0)
    } else if let Some(enc) = html.then(|| prescan(bytes)).flatten() {
        (enc, Source::Meta, 0)
    } else if valid_utf8(bytes, truncated) {
        // Bytes that are UTF-8 throughout are UTF-8, as the detector (which allows UTF-8)
        // would say, without its pass per candidate encoding: about 85 ns a byte.
        (UTF_8, Source::Detected, 0)
    } else {
        let sample = &bytes[..bytes.len().min(64 * 1024)];
        (
            detect(sample, !truncated && sample.len() == bytes.len()),
            Source::Detected,
            0,
        )
    };
    let encoding = if encoding == X_USER_DEFINED && source != Source::Header {
        WINDOWS_1252
    } else {
        encoding
    };
    (encoding, source, skip)
}

/// The encoding the detector guesses for `sample` (`last`: the stream ends with it), UTF-8
/// allowed, ISO-2022-JP not, no top-level domain.
///
/// The detector is given the sample less the ASCII that cannot change its guess: in a run
/// of plain ASCII bytes ([`is_plain`]) after the first non-ASCII byte, the bytes after the
/// run's first [`settles`] point up to its last one are left out. At such a point every
/// candidate of the detector is in one state, whatever came before: its previous byte is
/// ASCII, any multi-byte sequence begun earlier has ended or disqualified the candidate, and
/// a space resets what each single-byte candidate tracks of case, word and ordinal (words
/// count non-ASCII letters only). From that state plain ASCII scores nothing, for an ASCII
/// pair never scores, and it never disqualifies a candidate. So the state and scores after
/// the last point are the same as after the first, and the guess is the one the whole
/// sample gives (the guess of a sample fed in pieces is the guess of the whole, as the
/// detector's `feed` says), at a small part of the cost: a page's markup is mostly ASCII.
/// This is how chardetng 1.0 reads bytes; a test compares its guesses with those of the
/// whole sample (under several top-level domains, UTF-8 allowed or not) on mixed scripts.
fn detect(sample: &[u8], last: bool) -> &'static Encoding {
    fed_detector(sample, last).guess(None, chardetng::Utf8Detection::Allow)
}

/// The detector of [`detect`], fed.
fn fed_detector(sample: &[u8], last: bool) -> chardetng::EncodingDetector {
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    // Bytes before the first non-ASCII one are skipped by the detector itself.
    let from = sample
        .iter()
        .position(|&b| b >= 0x80)
        .unwrap_or(sample.len());
    let mut fed = 0;
    // The run of plain bytes at `i`: its length, its first and last settling points.
    let mut run = 0;
    let mut points: Option<(usize, usize)> = None;
    let mut skip = |points: &mut Option<(usize, usize)>, fed: &mut usize| {
        if let Some((first, last)) = points.take()
            && last > first
        {
            detector.feed(&sample[*fed..=first], false);
            *fed = last + 1;
        }
    };
    for (i, &b) in sample.iter().enumerate().skip(from) {
        if !is_plain(b) {
            run = 0;
            skip(&mut points, &mut fed);
            continue;
        }
        run += 1;
        if settles(b, run) {
            points = Some(points.map_or((i, i), |(first, _)| (first, i)));
        }
    }
    skip(&mut points, &mut fed);
    detector.feed(&sample[fed..], last);
    detector
}

/// Whether a byte is plain ASCII: printable, a space, tab, line feed or carriage return (no
/// other control, so no escape of ISO-2022).
fn is_plain(b: u8) -> bool {
    matches!(b, b' '..=b'~' | b'\t' | b'\n' | b'\r')
}

/// Whether the byte `b`, ending a run of `run` plain bytes, is a point where every
/// candidate of the detector settles (see [`detect`]): a space after at least
/// [`SETTLE_RUN`] plain bytes, more than the longest multi-byte sequence a candidate reads
/// (four bytes, GB18030) and the one byte a decoder may hold back after an error.
fn settles(b: u8, run: usize) -> bool {
    b == b' ' && run > SETTLE_RUN
}

/// The plain bytes before a settling space (see [`settles`]).
const SETTLE_RUN: usize = 8;

/// Whether `bytes` are UTF-8 throughout, but for a character cut in two at the end when
/// they are a `truncated` prefix.
fn valid_utf8(bytes: &[u8], truncated: bool) -> bool {
    match std::str::from_utf8(bytes) {
        Ok(_) => true,
        Err(e) => truncated && e.error_len().is_none(),
    }
}

/// The WHATWG "prescan a byte stream to determine its encoding", simplified: the
/// first `<meta>` with a `charset` attribute, or with `http-equiv="content-type"` and a
/// `content` naming a charset. The first 1024 bytes are scanned, and past them the rest of
/// the `<head>` (to [`HEAD_SCAN_MAX`] bytes): a browser that meets a declaration there while
/// parsing changes to it, and pages of long heads declare one past 1024 bytes.
pub fn prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(HEAD_SCAN_MAX)];
    let mut at = 0;
    while let Some(lt) = head[at..].iter().position(|&b| b == b'<') {
        at += lt;
        let rest = &head[at..];
        let opens = |name: &[u8]| {
            rest.get(1..=name.len())
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
                && rest
                    .get(name.len() + 1)
                    .is_none_or(|b| b.is_ascii_whitespace() || matches!(b, b'/' | b'>'))
        };
        if rest.starts_with(b"<!--") {
            at += find(rest, b"-->").map_or(rest.len(), |end| end + 3);
            continue;
        }
        if at >= PRESCAN_MIN && (opens(b"body") || opens(b"/head")) {
            return None;
        }
        if opens(b"meta") && rest.len() > 5 {
            let (attrs, len) = attributes(&rest[5..]);
            at += 5 + len;
            if let Some(enc) = meta_encoding(&attrs) {
                // A UTF-16 declaration in a byte stream that parsed as ASCII is UTF-8.
                return Some(if enc == UTF_16BE || enc == UTF_16LE {
                    UTF_8
                } else {
                    enc
                });
            }
            continue;
        }
        at += 1;
    }
    None
}

/// The bytes the prescan always reads, as the standard has it.
const PRESCAN_MIN: usize = 1024;

/// The bytes of `<head>` the prescan reads at most.
pub const HEAD_SCAN_MAX: usize = 64 * 1024;

fn meta_encoding(attrs: &[(String, String)]) -> Option<&'static Encoding> {
    let get = |name: &str| {
        attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    if let Some(charset) = get("charset") {
        return Encoding::for_label(charset.trim().as_bytes());
    }
    let is_content_type = get("http-equiv").is_some_and(|v| v.eq_ignore_ascii_case("content-type"));
    if is_content_type {
        return get("content")
            .and_then(charset_param)
            .and_then(|c| Encoding::for_label(c.as_bytes()));
    }
    None
}

/// The `charset=` parameter of a Content-Type value, unquoted.
pub fn charset_param(value: &str) -> Option<&str> {
    let lower = value.to_ascii_lowercase();
    let at = lower.find("charset")?;
    let rest = value.get(at + "charset".len()..)?.trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let rest = rest.trim_start_matches(['"', '\'']);
    let end = rest
        .find(|c: char| c == ';' || c == '"' || c == '\'' || c.is_whitespace())
        .unwrap_or(rest.len());
    let charset = &rest[..end];
    (!charset.is_empty()).then_some(charset)
}

/// Reads a tag's attributes up to its `>`: the (lowercased name, value) pairs and
/// how many bytes were consumed.
fn attributes(bytes: &[u8]) -> (Vec<(String, String)>, usize) {
    let mut attrs = Vec::new();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < bytes.len() && (bytes[*i].is_ascii_whitespace() || bytes[*i] == b'/') {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        if i >= bytes.len() || bytes[i] == b'>' {
            return (attrs, (i + 1).min(bytes.len()));
        }
        let start = i;
        while i < bytes.len()
            && !bytes[i].is_ascii_whitespace()
            && !matches!(bytes[i], b'=' | b'>' | b'/')
        {
            i += 1;
        }
        let name = String::from_utf8_lossy(&bytes[start..i]).to_ascii_lowercase();
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if bytes.get(i) == Some(&b'=') {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            match bytes.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    i += 1;
                    let s = i;
                    while i < bytes.len() && bytes[i] != q {
                        i += 1;
                    }
                    value = String::from_utf8_lossy(&bytes[s..i]).into_owned();
                    i += 1;
                }
                _ => {
                    let s = i;
                    while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'>' {
                        i += 1;
                    }
                    value = String::from_utf8_lossy(&bytes[s..i]).into_owned();
                }
            }
        }
        if !name.is_empty() && !attrs.iter().any(|(n, _)| *n == name) {
            attrs.push((name, value));
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_wins_over_everything() {
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend_from_slice("<meta charset=windows-1251>é".as_bytes());
        let (text, enc, src) = decode(&bytes, Some("iso-8859-1"), true, false, false);
        assert_eq!((enc, src), (UTF_8, Source::Bom));
        assert!(text.ends_with('é') && !text.starts_with('\u{feff}'));
    }

    #[test]
    fn decoding_owned_bytes_gives_what_decoding_a_copy_gives_in_room_for_the_text_alone() {
        let mut bom = vec![0xEF, 0xBB, 0xBF];
        bom.extend_from_slice("é".as_bytes());
        let cut = "ab日".as_bytes()[..4].to_vec();
        let cases: &[(Vec<u8>, Option<&str>, bool)] = &[
            ("<p>déjà vu</p>".as_bytes().to_vec(), None, false),
            ("<p>déjà vu</p>".as_bytes().to_vec(), Some("utf-8"), false),
            // A character the cap cut in two: dropped when truncated, U+FFFD when not.
            (cut.clone(), Some("utf-8"), true),
            (cut, Some("utf-8"), false),
            // Not UTF-8 although the header says so: U+FFFD.
            (b"caf\xe9 au lait".to_vec(), Some("utf-8"), false),
            (b"caf\xe9 au lait".to_vec(), None, false),
            (bom, None, false),
        ];
        for (bytes, charset, truncated) in cases {
            let mut roomy = Vec::with_capacity(bytes.len() * 4);
            roomy.extend_from_slice(bytes);
            let owned = decode_owned(roomy, *charset, true, false, *truncated);
            assert_eq!(owned, decode(bytes, *charset, true, false, *truncated));
            assert_eq!(owned.0.capacity(), owned.0.len(), "{bytes:?}");
        }
        let (text, _, _) = decode(b"caf\xe9", Some("windows-1252"), false, false, false);
        assert_eq!((text.as_str(), text.capacity()), ("café", 5));
    }

    #[test]
    fn header_beats_meta() {
        let (_, enc, src) = decode(
            b"<meta charset=shift_jis>x",
            Some("windows-1251"),
            true,
            false,
            false,
        );
        assert_eq!((enc.name(), src), ("windows-1251", Source::Header));
    }

    #[test]
    fn meta_forms() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (
                b"<html><head><meta charset=\"windows-1251\">",
                Some("windows-1251"),
            ),
            (b"<META CHARSET='Shift_JIS'>", Some("Shift_JIS")),
            (
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=koi8-r\">",
                Some("KOI8-R"),
            ),
            (
                b"<meta content='text/html;charset=euc-jp' http-equiv=content-type>",
                Some("EUC-JP"),
            ),
            (
                b"<!-- <meta charset=koi8-r> --><meta charset=gbk>",
                Some("GBK"),
            ),
            (b"<meta charset=utf-16le>", Some("UTF-8")),
            (b"<meta name=description content=\"charset=koi8-r\">", None),
            (b"<metadata charset=koi8-r>", None),
            (b"<p>no meta</p>", None),
        ];
        for (html, want) in cases {
            assert_eq!(
                prescan(html).map(Encoding::name),
                *want,
                "{}",
                String::from_utf8_lossy(html)
            );
        }
        // Past the first 1024 bytes, the rest of the head is read; not the body, and not
        // past the scan's bound.
        let mut late = b"<head>".to_vec();
        late.extend_from_slice(&b"<script src=a.js></script>\n".repeat(50));
        assert!(late.len() > 1024);
        let head = [late.clone(), b"<meta charset=koi8-r>".to_vec()].concat();
        assert_eq!(prescan(&head).map(Encoding::name), Some("KOI8-R"));
        let body = [late.clone(), b"</head><body><meta charset=koi8-r>".to_vec()].concat();
        assert_eq!(prescan(&body), None, "the body's declarations are not read");
        let far = [
            late.clone(),
            vec![b' '; HEAD_SCAN_MAX],
            b"<meta charset=koi8-r>".to_vec(),
        ]
        .concat();
        assert_eq!(prescan(&far), None, "bounded");
        let early = b"<body><meta charset=koi8-r>";
        assert_eq!(
            prescan(early).map(Encoding::name),
            Some("KOI8-R"),
            "the first 1024 bytes are read whatever they hold"
        );
    }

    #[test]
    fn detection_when_nothing_declares() {
        let (cyrillic, _, _) = encoding_rs::WINDOWS_1251
            .encode("Привет, это страница на русском языке, и её нужно прочитать правильно.");
        let (text, enc, src) = decode(&cyrillic, None, false, false, false);
        assert_eq!(src, Source::Detected);
        assert_eq!(enc.name(), "windows-1251");
        assert!(text.starts_with("Привет"));
    }

    #[test]
    fn bytes_utf8_throughout_are_utf8_however_late_the_first_accent() {
        // The first accent lies past the detector's sample.
        let mut page = "<p>plain words</p>\n".repeat(5000).into_bytes();
        page.extend_from_slice("<p>café</p>".as_bytes());
        assert!(page.len() > 64 * 1024);
        let (text, enc, src) = decode(&page, None, true, false, false);
        assert_eq!((enc, src), (UTF_8, Source::Detected));
        assert!(
            text.ends_with("<p>café</p>"),
            "{}",
            &text[text.len() - 20..]
        );

        // A prefix cut inside its last character is still UTF-8.
        let cut = &page[..page.len() - "</p>".len() - 1];
        let (text, enc, _) = decode(cut, None, true, false, true);
        assert_eq!(enc, UTF_8);
        assert!(text.ends_with("<p>caf"));

        // Bytes that are not UTF-8 go to the detector.
        let latin = b"<p>Le caf\xe9 de la gare est ferm\xe9 le dimanche.</p>";
        let (text, enc, _) = decode(latin, None, true, false, false);
        assert_eq!(enc, WINDOWS_1252);
        assert!(text.contains("café"));
    }

    #[test]
    fn the_detector_guesses_as_it_would_from_the_whole_sample() {
        use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
        let whole = |sample: &[u8], last: bool| {
            let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
            detector.feed(sample, last);
            detector
        };
        // Non-ASCII pieces of several scripts and encodings, stray bytes, and the ASCII
        // that lies between them in a page: words, markup, digits, controls, an escape.
        let mut pieces: Vec<Vec<u8>> = Vec::new();
        for (enc, text) in [
            (WINDOWS_1252, "café déjà “quoted” it’s £5 ©2004 nº 3ª Señor"),
            (encoding_rs::WINDOWS_1250, "Příliš žluťoučký kůň úpěl"),
            (
                encoding_rs::WINDOWS_1251,
                "Привет, это страница ВСЕ заглавные",
            ),
            (encoding_rs::KOI8_U, "Привіт світ"),
            (encoding_rs::WINDOWS_1253, "Καλημέρα κόσμε"),
            (encoding_rs::WINDOWS_1254, "İstanbul ığdır şişe"),
            (encoding_rs::WINDOWS_1255, "שלום עולם, מה נשמע?"),
            (encoding_rs::WINDOWS_1256, "مرحبا بالعالم"),
            (encoding_rs::WINDOWS_874, "สวัสดีชาวโลก"),
            (encoding_rs::GBK, "你好，世界。中文网页"),
            (encoding_rs::SHIFT_JIS, "こんにちは世界、ｶﾀｶﾅ"),
            (encoding_rs::EUC_JP, "日本語のページ"),
            (encoding_rs::EUC_KR, "안녕하세요 세계"),
            (encoding_rs::BIG5, "繁體中文網頁"),
            (UTF_8, "naïve “UTF-8” — ok"),
        ] {
            let (bytes, _, _) = enc.encode(text);
            pieces.push(bytes.into_owned());
        }
        for ascii in [
            "the quick brown fox jumps over the lazy dog ",
            "<div class=\"post\"><a href=\"/x\">Read more</a></div>\n",
            "  ",
            "A",
            "1999 ",
            "N.",
            "I V X ",
            "ALL CAPS WORDS ",
            "\t\r\n",
            "\u{1b}$B",
            "\u{0}\u{7f}",
            "x",
        ] {
            pieces.push(ascii.as_bytes().to_vec());
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let tlds: [Option<&[u8]>; 6] = [
            None,
            Some(b"jp"),
            Some(b"ru"),
            Some(b"cn"),
            Some(b"tw"),
            Some(b"cz"),
        ];
        for case in 0..3000 {
            let mut sample = Vec::new();
            for _ in 0..next() % 60 {
                let r = next();
                match r % 8 {
                    // A stray byte, any value.
                    0 => sample.push((r >> 8) as u8),
                    // A long ASCII stretch: repeated words or markup.
                    1 => {
                        let piece = &pieces[15 + (r >> 8) as usize % 2];
                        for _ in 0..(r >> 16) % 20 {
                            sample.extend_from_slice(piece);
                        }
                    }
                    _ => sample.extend_from_slice(&pieces[(r >> 8) as usize % pieces.len()]),
                }
            }
            let last = case % 3 != 0;
            let (ours, all) = (fed_detector(&sample, last), whole(&sample, last));
            for tld in tlds {
                for utf8 in [Utf8Detection::Allow, Utf8Detection::Deny] {
                    assert_eq!(
                        ours.guess(tld, utf8),
                        all.guess(tld, utf8),
                        "case {case}: {:?}",
                        String::from_utf8_lossy(&sample)
                    );
                }
            }
        }
    }

    #[test]
    fn truncated_prefix_drops_a_split_character() {
        let bytes = "ab€".as_bytes();
        let cut = &bytes[..bytes.len() - 1];
        let (text, _, _) = decode(cut, Some("utf-8"), false, false, true);
        assert_eq!(text, "ab");
        let (text, _, _) = decode(cut, Some("utf-8"), false, false, false);
        assert_eq!(text, "ab\u{fffd}");
    }

    #[test]
    fn charset_parameter() {
        assert_eq!(charset_param("text/html; charset=UTF-8"), Some("UTF-8"));
        assert_eq!(
            charset_param("text/html;Charset=\"koi8-r\""),
            Some("koi8-r")
        );
        assert_eq!(charset_param("text/html"), None);
        assert_eq!(charset_param("text/html; charset="), None);
        assert!(decode(b"{\"a\":1}", None, false, true, false).2 == Source::Json);
    }
}
