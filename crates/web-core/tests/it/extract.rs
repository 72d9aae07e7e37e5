//! Extraction: golden outputs of hand-made pages and non-HTML bodies, the title rules, links,
//! flags, and robustness on hostile input (deep nesting, huge lines, broken markup).

use std::path::PathBuf;
use std::time::Duration;

use mcp_web_core::extract::{BodyKind, JAVASCRIPT_SHELL_NOTICE, extract};
use url::Url;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/extract")
        .join(name)
}

fn base() -> Url {
    Url::parse("https://garden.example/articles/tomatoes?ref=feed#top").expect("a valid URL")
}

/// Each fixture, the content type it is served with, and its golden output
/// (`<fixture>.expected.txt`). Set `UPDATE_GOLDEN=1` to rewrite the golden files.
const GOLDEN: &[(&str, &str)] = &[
    ("article.html", "text/html; charset=utf-8"),
    ("news.html", "text/html"),
    ("js_shell.html", "text/html"),
    ("selection_loses.html", "text/html"),
    ("feed.rss", "application/rss+xml"),
    ("feed.atom", "application/atom+xml"),
    ("config.xml", "text/xml"),
    ("data.json", "application/json"),
    ("data.csv", "text/csv"),
    ("notes.md", "text/markdown; charset=utf-8"),
    ("plain.txt", "text/plain"),
];

#[test]
fn golden_outputs() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for (name, content_type) in GOLDEN {
        let body = std::fs::read_to_string(data(name)).expect("fixture readable");
        let text = extract(&body, content_type, &base()).text();
        let expected_path = data(&format!("{name}.expected.txt"));
        if update {
            std::fs::write(&expected_path, format!("{text}\n")).expect("golden writable");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).expect("golden readable");
        if text != expected.strip_suffix('\n').unwrap_or(&expected) {
            failures.push(format!("--- {name}: got\n{text}\n--- expected\n{expected}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn article_keeps_content_and_drops_chrome() {
    let body = std::fs::read_to_string(data("article.html")).expect("fixture readable");
    let out = extract(&body, "text/html", &base());
    let text = out.text();
    for kept in [
        "## What you need\n\n- A container",
        "### Sowing, step by step",
        "  - peat-free if possible",
        "2. Prick out the seedlings",
        "| Variety | Fruit size | Days to harvest |",
        "| --- | --- | --- |",
        "> Water deeply and rarely rather than a little every day.\n>\n> Your plants",
        "```python\ndef water(plant, litres=2):",
        "Call `water(tomato)` every other evening",
        "mixed with some worm castings",
        // A picture's alternative text describes what the reader does not see: not text.
        "more often in a heatwave. Feed weekly",
    ] {
        assert!(text.contains(kept), "missing {kept:?} in\n{text}");
    }
    for dropped in [
        "cookies",
        "Vegetables",
        "Share on",
        "hidden",
        "inline style",
        "Decorative",
        "Related articles",
        "Leave a comment",
        "All rights reserved",
        "window.analytics",
        "font-family",
        "/worm-castings",
        "can.png",
        "a watering can",
        "A truss of ripe cherry tomatoes",
        "IMG_2041",
        "The first harvest",
    ] {
        assert!(!text.contains(dropped), "kept {dropped:?} in\n{text}");
    }
    assert!(!out.flags.javascript_shell);
    assert!(!text.contains("\n\n\n"), "runs of blank lines");
}

#[test]
fn boilerplate_inside_the_content_is_pruned_and_the_article_kept_whole() {
    let body = std::fs::read_to_string(data("news.html")).expect("fixture readable");
    let out = extract(&body, "text/html", &base());
    let text = out.text();
    assert!(
        !out.flags.whole_body,
        "selection, not the fallback:\n{text}"
    );
    // The headline the page shows is the title, and the text does not say it again.
    assert_eq!(
        out.title.as_deref(),
        Some("Harbour reopens after a week of storm repairs")
    );
    assert!(text.starts_with("Fishing boats returned"), "{text}");
    for kept in [
        // The standfirst sits in the article's header, beside the body, under the
        // headline the title line says.
        "Fishing boats returned",
        "Engineers worked in shifts",
        // A sentence that goes on after its link is not a promotion.
        "See the harbour master's guide to moorings first.",
        // A link within the page and a link written as an address are content.
        "Questions and answers: Why was the port closed for so long?",
        "The full inspection report is at https://port.example/report-2026",
        "## Why was the port closed for so long?\n\nDivers had to check",
    ] {
        assert!(text.contains(kept), "missing {kept:?} in\n{text}");
    }
    for dropped in [
        "By Mara Quinn",
        "2 March 2026",
        "Photo: Coast Herald staff",
        "Boats in the inner basin",
        "Read also",
        "Storm damage counted",
        "Related stories",
        "breakwater's long history",
        "Lifeboat crew honoured",
        "four sailors",
        "The new ferry arrives",
        "covers the coast",
        "About the author",
        "All rights reserved",
        "Coast Herald\n",
    ] {
        assert!(!text.contains(dropped), "kept {dropped:?} in\n{text}");
    }
}

/// A page whose headline stands apart from the story, with paragraphs long enough for
/// content selection.
fn story_page(h1: &str) -> String {
    let para = "The harbour master closed the port after waves tore away part of the eastern \
        breakwater, and engineers worked through the week to lay new concrete blocks. ";
    format!(
        "<title>Storm closes the harbour for a week | Coast Herald</title>\
         <div class=top><h1>{h1}</h1></div>\
         <div class=story><p>{para}{para}</p><p>{para}{para}</p><p>{para}</p></div>"
    )
}

#[test]
fn a_headline_dropped_by_selection_is_the_title_line_and_a_site_name_is_dropped() {
    let out = extract(
        &story_page("Storm closes the harbour for a week"),
        "text/html",
        &base(),
    );
    // The headline is the title (the site name cut off), printed once, above the text.
    assert_eq!(
        out.title.as_deref(),
        Some("Storm closes the harbour for a week")
    );
    assert!(
        out.text().starts_with("The harbour master"),
        "{}",
        out.text()
    );
    let out = extract(&story_page("Coast Herald"), "text/html", &base());
    assert!(!out.text().contains("Coast Herald"), "{}", out.text());
    assert!(
        out.text().starts_with("The harbour master"),
        "{}",
        out.text()
    );
}

#[test]
fn the_title_is_the_thread_s_subject_or_the_page_s_own_without_the_site_s_name() {
    let para = "<p>The bearing wore out after two winters, so I replaced it with a sealed one \
                and greased the shaft before putting the wheel back on the frame.</p>";
    let body = format!("<div class=post>{para}{para}{para}</div>");
    // A thread says its subject in JSON-LD, as the page's main entity; the `<title>` adds
    // the board and the forum.
    let island = "<script type='application/ld+json'>{\"@context\":\"https://schema.org\",\
                  \"@type\":\"WebPage\",\"mainEntity\":{\"@type\":\"DiscussionForumPosting\",\
                  \"headline\":\"Bearing wears out after two winters\"}}</script>";
    let page = format!(
        "<html><head><title>Maintenance - Bearing wears out after two winters | Bike \
         Forum</title>{island}</head><body>{body}</body></html>"
    );
    let out = extract(&page, "text/html", &base());
    assert_eq!(
        out.title.as_deref(),
        Some("Bearing wears out after two winters")
    );
    // No heading says the title: the last part, the site's name by its host, is cut.
    let host = Url::parse("https://www.gardenclub.example/plots").expect("a valid URL");
    let page = format!(
        "<html><head><title>Allotment plots for rent | Garden Club</title></head><body>\
         <h1>Grow your own</h1>{body}</body></html>"
    );
    let out = extract(&page, "text/html", &host);
    assert_eq!(out.title.as_deref(), Some("Allotment plots for rent"));
}

#[test]
fn the_title_is_the_heading_the_page_shows_when_it_says_what_the_search_title_says() {
    let para = "<p>Start with one lesson a day, review the words you missed each evening, \
                and speak aloud as often as you read, whatever the app you choose.</p>";
    let page = |head: &str, headings: &str| {
        format!(
            "<html><head><title>{head}</title></head><body><main>{headings}{para}{para}\
             {para}</main></body></html>"
        )
    };
    let title = |page: &str| extract(page, "text/html", &base()).title;
    // The `<title>` written for search engines and the page's one `h1` say the same
    // thing in other words: the `h1` is the title, its line break a space.
    let seo = "Best Apps to Learn a Language in 2025 - Top 10 Picks";
    let out = extract(
        &page(
            seo,
            "<h1>Best Language<br>Learning Apps of 2025<a href='#top'>Â¶</a></h1>",
        ),
        "text/html",
        &base(),
    );
    assert_eq!(
        out.title.as_deref(),
        Some("Best Language Learning Apps of 2025")
    );
    // The heading is said by the title line, not again in the text.
    let text = out.text();
    assert!(!text.contains("Language Learning Apps"), "{text}");
    assert!(text.contains("Start with one lesson a day"), "{text}");
    // An `h1` that shares less than half its words, several `h1`, or an `h1` that puts a
    // label before the title leave the title as it is.
    let unlike = page(seo, "<h1>Top 10 Language Learning Apps</h1>");
    assert_eq!(
        title(&unlike).as_deref(),
        Some("Best Apps to Learn a Language in 2025")
    );
    let two = page(
        seo,
        "<h1>Best Language Learning Apps of 2025</h1><h1>Apps</h1>",
    );
    assert_eq!(
        title(&two).as_deref(),
        Some("Best Apps to Learn a Language in 2025")
    );
    let labelled = page(
        "Learning a language at fifty",
        "<h1><span>Thread:</span> Learning a language at fifty</h1>",
    );
    assert_eq!(
        title(&labelled).as_deref(),
        Some("Learning a language at fifty")
    );
}

#[test]
fn a_product_s_description_and_properties_declared_in_json_ld_are_content_when_not_shown() {
    let island = "<script type='application/ld+json'>{\"@context\":\"https://schema.org\",\
                  \"@graph\":[{\"@type\":\"BreadcrumbList\"},{\"@type\":[\"Product\"],\
                  \"name\":\"Field Mug\",\"description\":\"<p>A stoneware mug thrown by \
                  hand, glazed in speckled cream, for coffee on cold mornings.</p>\",\
                  \"additionalProperty\":[{\"@type\":\"PropertyValue\",\"name\":\
                  \"Capacity\",\"value\":\"350 ml\"}]}]}</script>";
    let shown = "<p>A stoneware mug thrown by hand, glazed in speckled cream, for coffee on \
                 cold mornings.</p>";
    let page = |body: &str| {
        format!(
            "<html><head><title>Field Mug</title>{island}</head><body><main><h1>Field \
             Mug</h1><p>Price: $28. Ships in two days.</p>{body}</main></body></html>"
        )
    };
    // Not shown (a script fills the description tab): the declared text is the content.
    let out = extract(&page(""), "text/html", &base()).text();
    assert!(out.contains("A stoneware mug thrown by hand"), "{out}");
    assert!(out.contains("Capacity: 350 ml"), "{out}");
    assert!(!out.contains("<p>"), "{out}");
    // Shown: once.
    let out = extract(&page(shown), "text/html", &base()).text();
    assert_eq!(out.matches("A stoneware mug").count(), 1, "{out}");
    assert!(!out.contains("Capacity"), "{out}");
}

#[test]
fn negated_and_taxonomy_class_names_do_not_mark_chrome() {
    let para = "Health officials urged countries to keep testing capacity in place and to \
        close the gaps in vaccination before the next wave of infections arrives. ";
    // More text elsewhere, so that the post holds less than the share of the page that
    // protects chrome holding much of the text.
    let other = "Ferries to the islands run twice a day in winter and four times a day in \
        summer, and tickets can be bought at the harbour office or on board. ";
    let page = format!(
        "<script>var a = 1;</script><article><div class='no-share post category-social-issues \
         tag-cookies'><p>{para}{para}</p><p>{para}</p></div><div class='share'>Share this</div>\
         <div class='more'><p>{other}{other}</p><p>{other}{other}</p><p>{other}{other}</p></div></article>"
    );
    let out = extract(&page, "text/html", &base());
    assert!(
        out.text().contains("Health officials urged"),
        "{}",
        out.text()
    );
    assert!(!out.text().contains("Share this"), "{}", out.text());
    assert!(!out.flags.javascript_shell);
}

#[test]
fn a_block_named_like_chrome_keeps_an_article_paragraph_but_a_consent_banner_goes() {
    let long = "The grill heats evenly across the whole plate, and after ten minutes the steaks \
        came off with a crust on both sides while the middle stayed pink; only the corners \
        stayed cooler, which suits vegetables that should not char. The drip tray collects \
        the fat, and the plate comes off for cleaning in the sink. ";
    let consent = "We and our partners use cookies and similar technologies to store and access \
        information on your device, to measure audiences, to personalise content and ads, and \
        to develop and improve products; you can accept all, reject all or choose your \
        preferences, and change them at any time from the privacy link in the footer. ";
    let page = format!(
        "<title>Grill test</title><article><section class='report__section--ads'>\
         <h2>The result</h2><p>{long}{long}</p></section><div class='ad-slot'>Advertisement</div>\
         <p>{long}{long}{long}</p></article><div class='cookie-consent'><p>{consent}</p></div>"
    );
    let out = extract(&page, "text/html", &base());
    let text = out.text();
    assert!(text.contains("## The result"), "{text}");
    assert_eq!(text.matches("The grill heats evenly").count(), 5, "{text}");
    assert!(!text.contains("Advertisement"), "{text}");
    assert!(!text.contains("We and our partners"), "{text}");
}

#[test]
fn a_short_post_whose_title_links_to_itself_is_not_a_teaser() {
    // The base URL is https://garden.example/articles/tomatoes?ref=feed#top.
    let page = "<title>Tomatoes in pots</title><body><article><h2>\
        <a href='/articles/tomatoes?ref=feed'>Tomatoes in pots</a></h2><p>A short note: \
        three plants fit on a small balcony.</p></article><article><h2>\
        <a href='/articles/chillies'>Chillies</a></h2><p>Another post.</p></article></body>";
    let text = extract(page, "text/html", &base()).text();
    assert!(text.contains("three plants fit"), "{text}");
    assert!(!text.contains("Another post"), "{text}");
}

#[test]
fn a_listing_of_cards_keeps_every_card() {
    // A section's page: its stories as cards (a linked title over a summary), nothing else.
    let cards: String = (0..8)
        .map(|i| {
            format!(
                "<article class=card><h3><a href='/stories/{i}'>Story number {i} of the \
                 section</a></h3><p>Summary {i}: the council, the harbour and the ferry, told \
                 in two lines.</p></article>"
            )
        })
        .collect();
    let page = format!(
        "<title>Harbour news | Coast Herald</title><body><nav><a href='/'>Home</a>\
         <a href='/sport'>Sport</a></nav><h1>Harbour news</h1><p>Everything we wrote about \
         the harbour.</p><div class=list>{cards}</div><footer>© Coast Herald</footer></body>"
    );
    let text = extract(&page, "text/html", &base()).text();
    for i in 0..8 {
        assert!(
            text.contains(&format!("Summary {i}: the council")),
            "{text}"
        );
        assert!(text.contains(&format!("Story number {i} of")), "{text}");
    }
    assert!(!text.contains("Sport"), "{text}");
}

#[test]
fn a_grid_of_cards_each_wholly_a_link_is_the_page_s_content() {
    // A category page: its products as cards, each one link around a picture, a name and a
    // price (no heading), which alone read as link blocks; an article's related stories are
    // such cards too, and stay out.
    let cards: String = (0..8)
        .map(|i| {
            format!(
                "<div class='card card-{i}'><a href='/p/{i}'><img src='/i/{i}.jpg' alt=''>\
                 <span class=name>Stainless steel hand trowel, model {i}, with a warm ash \
                 handle, a rust-proof blade and a leather loop</span><span class=price>${i}2.00</span></a></div>"
            )
        })
        .collect();
    let page = format!(
        "<title>Hand tools | Garden Shop</title><body><nav><a href='/'>Home</a>\
         <a href='/sale'>Sale</a></nav><h1>Hand tools</h1><div class=grid>{cards}</div>\
         <footer>© Garden Shop</footer></body>"
    );
    let text = extract(&page, "text/html", &base()).text();
    for i in 0..8 {
        assert!(
            text.contains(&format!("hand trowel, model {i}, with")),
            "{text}"
        );
    }
    assert!(!text.contains("Sale"), "{text}");
    let para = "The trowel is the tool a gardener reaches for most, and its handle decides how \
        long a morning of planting feels; ash stays warm and light in the hand. ";
    let page = format!(
        "<title>Choosing a trowel</title><body><article><h1>Choosing a trowel</h1>\
         <p>{para}</p><p>{para}</p><p>{para}</p></article><div class=grid>{cards}</div></body>"
    );
    let text = extract(&page, "text/html", &base()).text();
    assert!(text.contains("ash stays warm"), "{text}");
    assert!(!text.contains("model 3"), "{text}");
}

#[test]
fn boilerplate_that_holds_most_of_the_page_is_its_content() {
    // An author's own page is one long author box.
    let page = "<title>Mara Quinn</title><body><h1>Mara Quinn</h1><div class='author-bio'>\
        <p>Mara Quinn covers the coast and its industries: fishing, ferries and the port.</p>\
        <p>She joined the Herald in 2014 after ten years on a regional weekly.</p></div>\
        <div class='author-bio'><p>Contact her at the newsroom.</p></div></body>";
    let text = extract(page, "text/html", &base()).text();
    assert!(text.contains("Mara Quinn covers the coast"), "{text}");
    assert!(text.contains("She joined the Herald"), "{text}");
}

#[test]
fn highlighted_code_keeps_every_token_whatever_its_class() {
    let para = "Each route answers with a small page, and the layout below is the one every \
        page shares; the header and the footer come from the same template. ";
    let page = format!(
        "<title>Templates</title><article><p>{para}{para}</p><pre><code class='language-html'>\
         <span class='token tag'>&lt;footer&gt;</span><span class='hljs-date'>2026</span> \
         <span class='share-button'>share</span> <span class='ad'>ad</span> \
         <span class='token comment'>&lt;!-- end --&gt;</span></code></pre><p>{para}</p></article>"
    );
    let text = extract(&page, "text/html", &base()).text();
    assert!(
        text.contains("```html\n<footer>2026 share ad <!-- end -->\n```"),
        "{text}"
    );
}

#[test]
fn an_anchor_left_open_is_not_a_link() {
    // Old markup: `<a name>` never closed, so the parser keeps the list inside it.
    let item = "Build OpenSSL from source with the shared option, then install it under \
        /usr/local so that the tunnel and rsync both find the same libraries. ";
    let page = format!(
        "<title>Rsync over a tunnel</title><body><h1>Rsync over a tunnel</h1>\
         <h2><a name=steps>Steps</h2><ul><li>{item}</li><li>{item}</li><li>{item}</li>\
         <li>{item}</li></ul></body>"
    );
    let text = extract(&page, "text/html", &base()).text();
    assert_eq!(text.matches("Build OpenSSL").count(), 4, "{text}");
}

#[test]
fn html_metadata_title_language_and_links() {
    let body = std::fs::read_to_string(data("article.html")).expect("fixture readable");
    let out = extract(&body, "text/html", &base());
    assert_eq!(out.kind, BodyKind::Html);
    // The `og:title` says no heading of the page; the `<title>`'s part that the `h1` says
    // is the title, without the site's name.
    assert_eq!(out.title.as_deref(), Some("Growing tomatoes on a balcony"));
    assert_eq!(out.lang.as_deref(), Some("en-GB"));
    let links: Vec<&str> = out.links.iter().map(Url::as_str).collect();
    assert_eq!(
        links,
        [
            "https://garden.example/",
            "https://garden.example/vegetables",
            "https://garden.example/flowers",
            "https://garden.example/about",
            "https://twitter.com/share",
            "https://facebook.com/share",
            "https://garden.example/worm-castings",
            "https://garden.example/chillies",
            "https://garden.example/herbs",
            "https://garden.example/privacy",
        ]
    );
}

#[test]
fn links_honour_base_href_and_drop_fragments_duplicates_and_other_schemes() {
    let page = r##"<base href="https://cdn.example/docs/"><a href="a.html#x">1</a>
        <a href="a.html#y">2</a><a href="#top">3</a><a href="ftp://f.example/">4</a>
        <a href="data:text/html,x">5</a><a href="//other.example/p">6</a><a href="http://[::1">7</a>"##;
    let out = extract(page, "text/html", &base());
    let links: Vec<&str> = out.links.iter().map(Url::as_str).collect();
    assert_eq!(
        links,
        [
            "https://cdn.example/docs/a.html",
            "https://cdn.example/docs/",
            "https://other.example/p"
        ]
    );
}

#[test]
fn title_rules_og_title_then_title_then_h1() {
    let b = base();
    let t = |html: &str| extract(html, "text/html", &b).title;
    assert_eq!(
        t("<title> A \n title </title><meta property='og:title' content='OG'><h1>H</h1>")
            .as_deref(),
        Some("OG")
    );
    assert_eq!(
        t("<title> A longer \n title of a page </title><h1>H</h1><h1>I</h1>").as_deref(),
        Some("A longer title of a page")
    );
    assert_eq!(
        t("<title> </title><meta property='og:title' content=' OG  title '><h1>H</h1>").as_deref(),
        Some("OG title")
    );
    assert_eq!(
        t("<p>x</p><h1>First <em>heading</em></h1><h1>Second</h1>").as_deref(),
        Some("First heading")
    );
    assert_eq!(t("<p>no title at all</p>"), None);
}

#[test]
fn javascript_shell_gets_a_notice() {
    let body = std::fs::read_to_string(data("js_shell.html")).expect("fixture readable");
    let out = extract(&body, "text/html", &base());
    assert!(out.flags.javascript_shell);
    assert_eq!(
        out.lines.last().map(String::as_str),
        Some(JAVASCRIPT_SHELL_NOTICE)
    );
    assert!(JAVASCRIPT_SHELL_NOTICE.contains("do not run JavaScript"));
    // The page's own `<noscript>` message is dropped: only the notice remains.
    assert_eq!(out.lines, [JAVASCRIPT_SHELL_NOTICE]);
    let noscript = extract(
        "<p>Some text that stays.</p><noscript><p>Enable JavaScript</p></noscript>",
        "text/html",
        &base(),
    );
    assert_eq!(noscript.text(), "Some text that stays.");
    // Content that broken markup left inside a `noscript` is not lost.
    let long = "Regenerative energy and modern city planning make a society last. ".repeat(6);
    let swallowed = extract(
        &format!("<body><noscript><div><p>{long}</p></div></noscript></body>"),
        "text/html",
        &base(),
    );
    assert!(
        swallowed.text().contains(long.trim()),
        "{}",
        swallowed.text()
    );
    // A short page without scripts is not a shell.
    let small = extract("<title>x</title><p>Hello.</p>", "text/html", &base());
    assert!(!small.flags.javascript_shell);
    assert_eq!(small.text(), "Hello.");
}

#[test]
fn a_page_that_only_preloads_its_scripts_is_a_shell() {
    // A forum built in the browser: its head preloads the application, its body is a
    // loading splash.
    let page = |link: &str| {
        format!(
            "<html><head><title>Where should I start? - Community</title>{link}\
             <link rel=\"stylesheet\" href=\"/stylesheets/desktop.css\">\
             <meta name=\"description\" content=\"I have nothing smart at home yet.\"></head>\
             <body><section id=\"d-splash\"><div class=\"preloader-image\">{}</div>\
             </section></body></html>",
            "<div class=\"dots\" style=\"--n:1;\"></div>".repeat(12)
        )
    };
    for link in [
        "<link rel=\"preload\" href=\"/assets/start-app-9f92.js\" as=\"script\">",
        "<link rel=\"modulepreload\" href=\"/assets/app.mjs?v=2\">",
    ] {
        let out = extract(&page(link), "text/html", &base());
        assert!(out.flags.javascript_shell, "{link}");
        assert_eq!(out.lines, [JAVASCRIPT_SHELL_NOTICE], "{link}");
    }
    // A preloaded font or style is no script.
    for link in [
        "<link rel=\"preload\" href=\"/fonts/inter.woff2\" as=\"font\">",
        "<link rel=\"preload\" href=\"/assets/site.css\" as=\"style\">",
    ] {
        let out = extract(&page(link), "text/html", &base());
        assert!(!out.flags.javascript_shell, "{link}");
    }
}

#[test]
fn selection_never_loses_the_content() {
    let body = std::fs::read_to_string(data("selection_loses.html")).expect("fixture readable");
    let text = extract(&body, "text/html", &base()).text();
    for term in [
        "Abeam",
        "Aft",
        "Beam reach",
        "Bear away",
        "Close hauled",
        "Cunningham",
        "Gybe",
        "Heel",
        "Luff up",
        "Tack",
        "Telltales",
        "Windward",
    ] {
        assert!(text.contains(term), "lost {term:?} in\n{text}");
    }
}

#[test]
fn lines_are_stable() {
    let body = std::fs::read_to_string(data("article.html")).expect("fixture readable");
    let first = extract(&body, "text/html", &base());
    for _ in 0..3 {
        assert_eq!(extract(&body, "text/html", &base()), first);
    }
}

#[test]
fn feeds_list_items_as_title_lines_and_collect_links() {
    let body = std::fs::read_to_string(data("feed.rss")).expect("fixture readable");
    let out = extract(&body, "application/xml", &base());
    assert_eq!(out.kind, BodyKind::Xml);
    assert_eq!(out.title.as_deref(), Some("The Garden Journal"));
    let links: Vec<&str> = out.links.iter().map(Url::as_str).collect();
    assert_eq!(
        links,
        [
            "https://garden.example/",
            "https://garden.example/feed.xml",
            "https://garden.example/tomatoes",
            "https://garden.example/herbs"
        ]
    );
    // Sniffed without a content type too.
    assert_eq!(extract(&body, "", &base()).kind, BodyKind::Xml);
}

/// Runs `extract` on a hostile body. Boundedness is asserted by what comes back (the
/// content kept, the flags), not by the clock: the wait is only a hang guard, generous
/// enough for a loaded machine, so a hang fails the test instead of stalling the run.
fn bounded(body: &str, content_type: &str) -> mcp_web_core::extract::Extracted {
    let (body, content_type) = (body.to_owned(), content_type.to_owned());
    let (answer, answered) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = answer.send(extract(&body, &content_type, &base()));
    });
    answered
        .recv_timeout(Duration::from_secs(300))
        .expect("extraction answers (hang guard)")
}

#[test]
fn hundred_thousand_nested_elements() {
    for open in [
        "<div>",
        "<b>",
        "<ul><li>",
        "<table><tr><td>",
        "<blockquote>",
    ] {
        let mut page = String::from("<html><body>");
        for i in 0..100_000 {
            page.push_str(open);
            if i % 1000 == 0 {
                page.push_str("deep ");
            }
        }
        page.push_str("bottom");
        let out = bounded(&page, "text/html");
        assert!(
            out.flags.flattened,
            "{open}: the excess nesting was dropped"
        );
        assert!(out.text().contains("bottom"), "{open}");
        assert!(out.text().contains("deep"), "{open}");
    }
}

#[test]
fn ten_megabyte_single_line() {
    let mut page = String::from("<html><body><p>");
    while page.len() < 10_000_000 {
        page.push_str("lorem ipsum dolor sit amet ");
    }
    page.push_str("END</p></body></html>");
    let out = bounded(&page, "text/html");
    assert!(out.text().ends_with("END"));
    let plain = bounded(&page[15..], "text/plain");
    assert_eq!(plain.lines.len(), 1);
    let json = format!("[\"{}\"]", "x".repeat(10_000_000));
    let out = bounded(&json, "application/json");
    assert_eq!(out.lines.len(), 3);
}

#[test]
fn unclosed_tags_and_broken_markup() {
    let cases = [
        "<html><body><p>one<p>two<div><ul><li>three<li>four<table><tr><td>five",
        "<p>a <b>b <i>c</b> d</i> e</p><<<>>><!-- unclosed comment",
        "<pre><code class=language-rust>fn x() {",
        "<title>never closed",
        "<script>document.write('<p>not text</p>')",
        "</p></div></body></html>text after",
        "<a href='https://x.example/'>link<a href='/y'>nested",
        "<svg><foreignObject><p>inside svg</p></foreignObject></svg><math><mi>x",
        "<table><td>cell<table><td>inner</table>after",
        "<h1>one<h2>two<h3>three",
    ];
    for case in cases {
        let out = bounded(case, "text/html");
        assert!(!out.text().contains("<p>"), "{case}: {}", out.text());
    }
    let out = extract(cases[0], "text/html", &base());
    for word in ["one", "two", "three", "four", "five"] {
        assert!(out.text().contains(word), "{word} lost: {}", out.text());
    }
    for case in [
        "<rss><channel><title>x",
        "<?xml",
        "<![CDATA[",
        "<a b='>",
        "&#xFFFFFFFF; &#0;",
    ] {
        bounded(case, "application/xml");
    }
    for case in ["{", "[[[[", "\"\\", "{\"a\":}"] {
        bounded(case, "application/json");
    }
}

#[test]
fn invalid_bytes_and_control_characters() {
    let bytes: Vec<u8> =
        b"<html><body><p>caf\xe9 \xff\xfe na\xc3\xafve \x00 nul \x1b[31m \xed\xa0\x80</p>"
            .iter()
            .copied()
            .chain((0u8..=255).cycle().take(4096))
            .collect();
    let body = String::from_utf8_lossy(&bytes);
    for content_type in [
        "text/html",
        "text/plain",
        "application/json",
        "text/xml",
        "",
    ] {
        let out = bounded(&body, content_type);
        assert!(out.lines.iter().all(|l| !l.contains('\n')));
    }
    let out = extract(&body, "text/html", &base());
    assert!(out.text().contains("naïve"));
    // Found by the fuzz target: an ampersand followed by multi-byte characters in a feed.
    let feed = String::from_utf8_lossy(b"\x9f&\x8c\x8c\x8c\x8c");
    bounded(&feed, "application/rss+xml");
    let feed = "<rss><channel><item><title>A & 日本語の</title></item></channel></rss>";
    let out = bounded(feed, "application/rss+xml");
    assert!(out.text().contains("A & 日本語の"), "{}", out.text());
}

#[test]
fn deep_json_and_xml_stay_bounded() {
    let deep_json = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    let out = bounded(&deep_json, "");
    assert_eq!(out.text(), deep_json);
    let out = bounded(&deep_json, "application/json");
    assert!(!out.flags.reformatted);
    let deep_xml = format!("<?xml version='1.0'?>{}x", "<a>".repeat(200_000));
    let out = bounded(&deep_xml, "text/xml");
    assert_eq!(out.text(), "x");
}

#[test]
fn prose_lost_by_selection_brings_the_fallback_and_menus_do_not() {
    let story = "The lifeboat crew launched at dawn after a yacht lost its mast off the point, \
        and towed it into the harbour against a strong ebb tide before the wind rose. ";
    let notes = "Volunteers train every Tuesday evening at the station, and new members are \
        welcome whether or not they have been to sea before; the kit is provided. ";
    let links: String = (0..200)
        .map(|i| format!("<div><a href='/p{i}'>Page {i}</a></div>"))
        .collect();
    // Two separate blocks of prose far apart: selection keeps one, the fallback both.
    let page = format!(
        "<title>Station news</title><body><div id=a><div class=story><p>{story}{story}</p>\
         <p>{story}{story}</p><p>{story}</p></div></div>{links}<div id=b><div class=notes>\
         <p>{notes}{notes}</p><p>{notes}{notes}</p></div></div><div>© Station 2026</div></body>"
    );
    let out = extract(&page, "text/html", &base());
    let text = out.text();
    assert!(
        text.contains("The lifeboat crew") && text.contains("Volunteers train"),
        "{text}"
    );
    // Without the lost prose, the menu of links alone does not bring the fallback.
    let page = format!(
        "<title>Station news</title><body><div id=a><div class=story><p>{story}{story}</p>\
         <p>{story}{story}</p><p>{story}</p></div></div>{links}{links}</body>"
    );
    let out = extract(&page, "text/html", &base());
    assert!(!out.flags.whole_body, "{}", out.text());
    assert!(!out.text().contains("Page 7"), "{}", out.text());
}

#[test]
fn the_fallback_keeps_the_region_that_holds_the_prose() {
    let para = "Tomatoes want sun, water and patience; a balcony gives them all three \
                when the pots are deep enough and the compost is rich. ";
    let section = format!("<p>{}</p>", para.repeat(4));
    // Too deep for content selection; the site's header and footer are not marked as such.
    let deep = "<div>".repeat(200);
    let page = format!(
        "<title>Site</title><body><div class=top>Garden Journal · Home · Vegetables · \
         Flowers · About us · Contact</div><div class=wrap>{deep}{section}{section}{section}\
         </div><div class=bottom>Copyright 2026 Garden Journal · Imprint · Privacy</div></body>"
    );
    let out = extract(&page, "text/html", &base());
    assert!(out.flags.whole_body, "fallback expected:\n{}", out.text());
    let text = out.text();
    assert!(text.contains("Tomatoes want sun"), "{text}");
    assert!(
        !text.contains("Vegetables") && !text.contains("Imprint"),
        "{text}"
    );
}

#[test]
fn headings_keep_the_page_levels_in_selection_and_fallback() {
    let para = "Tomatoes want sun, water and patience; a balcony gives them all three \
                when the pots are deep enough and the compost is rich. ";
    let section = format!("<p>{}</p>", para.repeat(4));
    let selected_page = format!(
        "<title>Growing food in small spaces</title><body><article><h1>Balcony tomatoes</h1>{section}\
         <h2>Pots</h2>{section}<h3>Drainage</h3>{section}</article></body>"
    );
    let out = extract(&selected_page, "text/html", &base());
    assert!(!out.flags.whole_body, "selection expected:\n{}", out.text());
    let text = out.text();
    for heading in ["# Balcony tomatoes", "## Pots", "### Drainage"] {
        assert!(
            out.lines.iter().any(|l| l == heading),
            "missing {heading:?} in\n{text}"
        );
    }
    assert!(!text.contains("## Balcony"), "h1 demoted in\n{text}");

    // Too deep for content selection: the whole-body fallback gives the same levels.
    let deep = "<div>".repeat(200);
    let fallback_page = format!(
        "<title>Growing food in small spaces</title><body>{deep}<h1>Balcony tomatoes</h1>{section}\
         <h2>Pots</h2>{section}<h3>Drainage</h3>{section}</body>"
    );
    let out = extract(&fallback_page, "text/html", &base());
    assert!(out.flags.whole_body, "fallback expected:\n{}", out.text());
    for heading in ["# Balcony tomatoes", "## Pots", "### Drainage"] {
        assert!(
            out.lines.iter().any(|l| l == heading),
            "missing {heading:?} in\n{}",
            out.text()
        );
    }
}

/// The peak resident memory of this process, from `/proc/self/status` (`VmHWM`), in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Set in the child process [`memory_is_bounded_on_pages_of_parse_errors`] starts.
const MEMORY_CHILD: &str = "MCP_WEB_EXTRACT_MEMORY_CHILD";

/// Pages made of little but parse errors (2 MiB of NUL bytes, of `</>`) once took
/// hundreds of megabytes, the parser's error reports kept one string each. Measured in a
/// child process of its own, so no other test's memory counts: its peak resident memory
/// stays within 8 × the page plus a constant for the process itself.
#[test]
fn memory_is_bounded_on_pages_of_parse_errors() {
    const PAGE: usize = 2 * 1024 * 1024;
    if let Ok(which) = std::env::var(MEMORY_CHILD) {
        let filler: &[u8] = if which == "nul" { b"\0" } else { b"</>" };
        let mut page = String::from("<html><body><p>kept text</p>");
        page.push_str(&String::from_utf8_lossy(
            &filler.repeat(PAGE / filler.len()),
        ));
        let out = extract(&page, "text/html", &base());
        assert!(out.text().contains("kept text"));
        println!("peak-kib {}", peak_rss_kib().expect("/proc/self/status"));
        return;
    }
    if peak_rss_kib().is_none() {
        // Not Linux: there is no /proc to read the peak from.
        return;
    }
    for which in ["nul", "endtag"] {
        let child = std::process::Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "extract::memory_is_bounded_on_pages_of_parse_errors",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(MEMORY_CHILD, which)
            .output()
            .expect("the test binary runs");
        let stdout = String::from_utf8_lossy(&child.stdout);
        assert!(child.status.success(), "{which}: {stdout}");
        let peak: u64 = stdout
            .lines()
            .find_map(|l| l.split_once("peak-kib ").map(|(_, n)| n))
            .and_then(|n| n.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("{which}: no peak reported: {stdout}"));
        let limit = (8 * PAGE as u64 + 32 * 1024 * 1024) / 1024;
        assert!(peak <= limit, "{which}: peak {peak} KiB > {limit} KiB");
    }
}

#[test]
fn a_comment_thread_is_never_content_however_long() {
    let para = "The council voted to keep the night bus running through the winter, after \
                a petition signed by four thousand riders reached the transport committee. ";
    let comment = "I ride the night bus home from my shift every day and this decision means \
                   I can keep my job, thank you to everyone who signed the petition for us. ";
    // The thread holds far more text than the story, in long paragraphs.
    let thread: String = (0..30)
        .map(|i| format!("<li class='comment even depth-1' id='comment-{i}'><p>{comment}</p></li>"))
        .collect();
    let articles: String = (0..30)
        .map(|i| format!("<article class='comment' id='c{i}'><p>{comment}</p></article>"))
        .collect();
    for thread in [
        format!(
            "<div id='comments'><h2>30 responses</h2><ol class='commentlist'>{thread}</ol></div>"
        ),
        format!("<section class='comment-list'>{articles}</section>"),
    ] {
        let page = format!(
            "<title>Night bus stays</title><body><article class='post comments-open'>\
             <h1>Night bus stays</h1><p>{para}{para}</p><blockquote>We listened to the \
             riders.</blockquote><ul><li>Route N1 every 30 minutes</li><li>Route N2 every hour\
             </li></ul><p>{para}</p></article>{thread}</body>"
        );
        let text = extract(&page, "text/html", &base()).text();
        assert!(text.contains("The council voted"), "{text}");
        assert!(text.contains("We listened to the riders."), "{text}");
        assert!(text.contains("Route N2 every hour"), "{text}");
        assert!(!text.contains("I ride the night bus"), "{text}");
        assert!(!text.contains("30 responses"), "{text}");
    }
}

#[test]
fn the_title_is_the_articles_title_and_is_not_repeated_in_the_text() {
    let para = "The harbour master closed the port after waves tore away part of the eastern \
        breakwater, and engineers worked through the week to lay new concrete blocks. ";
    let page = format!(
        "<title>Storm closes the harbour for a week | Coast Herald</title>\
         <body><header><h1>Coast Herald</h1></header><article><h1>Storm closes the harbour for \
         a week</h1><p>{para}{para}</p><p>{para}{para}</p></article></body>"
    );
    let out = extract(&page, "text/html", &base());
    assert_eq!(
        out.title.as_deref(),
        Some("Storm closes the harbour for a week")
    );
    let text = out.text();
    assert!(text.starts_with("The harbour master"), "{text}");
    assert!(!text.contains("Coast Herald"), "{text}");
    // og:title says where the title ends when the <title> has no separator to cut at.
    let page = format!(
        "<title>Coast Herald: all the news of the coast</title>\
         <meta property='og:title' content='Storm closes the harbour'><p>{para}{para}</p>"
    );
    let out = extract(&page, "text/html", &base());
    assert_eq!(out.title.as_deref(), Some("Storm closes the harbour"));
}

/// Set in the child process [`a_page_of_tens_of_thousands_of_links_builds_a_bounded_tree`]
/// starts: how many links its page has.
const DENSE_CHILD: &str = "MCP_WEB_EXTRACT_MEMORY_CHILD";

/// `max-bytes`' default, which the extractor's element cap follows.
const DEFAULT_MAX_BYTES: u64 = 2 * 1024 * 1024;

/// The most one extraction of a hostile page may grow a process by, in units of
/// `max-bytes`, whatever its size under the cap.
const FETCH_MAX_GROWTH: u64 = 7;

/// A memory figure of this process from `/proc/self/status` (`VmHWM:`, `VmRSS:`), in KiB.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A page of nothing but links, as dense as markup gets (one element in 25 bytes), just
/// under the count of elements content selection takes: its tree is built once for
/// selection and copied by it, so before the element cap its extraction grew by about
/// 36 times `max-bytes` (76 MiB for a 1.7 MB page, release build); the tree now stops at
/// the cap (one element per 128 bytes of `max-bytes`) and a page cut there is not given
/// to selection: about 3.5 times in a release build, 4.3 in a debug one. Measured in a
/// child process of its own with one malloc arena, from its resident memory once the page
/// is made to its peak (see [`dense_page_growth`]).
#[test]
fn a_page_of_tens_of_thousands_of_links_builds_a_bounded_tree() {
    let Some((grew, cut)) = dense_page_growth(
        "extract::a_page_of_tens_of_thousands_of_links_builds_a_bounded_tree",
        59_000,
    ) else {
        return;
    };
    assert!(cut, "the page was not cut at its count of elements");
    let limit = FETCH_MAX_GROWTH * DEFAULT_MAX_BYTES / 1024;
    assert!(
        grew <= limit,
        "the extraction grew by {grew} KiB > {limit} KiB"
    );
}

/// The same page with a few elements fewer than the cap (16,300 links; 16,384 elements at
/// the default `max-bytes`) goes through content selection, whose attempts copied its tree
/// (up to three trees at once) beside the extractor's own copy: 20.4 MiB (9.7 times
/// `max-bytes`, debug build). A page that large is made again rather than copied, for each
/// attempt and for what is read of it after selection, one tree at a time: 11.7 MiB (5.6
/// times).
#[test]
fn a_page_just_under_the_element_cap_is_selected_within_a_bounded_memory() {
    dense_page_is_whole_and_bounded(
        "extract::a_page_just_under_the_element_cap_is_selected_within_a_bounded_memory",
        16_300,
    );
}

/// A page of half the elements it may build (8,150 links; 16,384 elements at the default
/// `max-bytes`) keeps one copy of its cleaned tree beside selection's, which selection's
/// attempts copy rather than parse and clean the page again: two trees of it, no more than
/// one of the page just under the cap: 7.2 MiB (debug build; 5.9 MiB when it was made again
/// for each attempt, 11.6 MiB for the page just under the cap).
#[test]
fn a_page_of_half_the_element_cap_is_copied_within_a_bounded_memory() {
    dense_page_is_whole_and_bounded(
        "extract::a_page_of_half_the_element_cap_is_copied_within_a_bounded_memory",
        8_150,
    );
}

/// Asserts that the page of `links` links, extracted in the child process running `test`
/// ([`dense_page_growth`]), was not cut at its count of elements and grew the process by no
/// more than [`FETCH_MAX_GROWTH`] times the default `max-bytes`.
fn dense_page_is_whole_and_bounded(test: &str, links: usize) {
    let Some((grew, cut)) = dense_page_growth(test, links) else {
        return;
    };
    assert!(!cut, "the page was cut at its count of elements");
    let limit = FETCH_MAX_GROWTH * DEFAULT_MAX_BYTES / 1024;
    assert!(
        grew <= limit,
        "the extraction grew by {grew} KiB > {limit} KiB"
    );
}

/// Runs `test` in a child process that extracts a page of `links` links (see
/// [`a_page_of_tens_of_thousands_of_links_builds_a_bounded_tree`]) with one malloc arena,
/// after a small page (so the code it runs is resident before the figure starts), and
/// answers how much its resident memory grew to its peak, in KiB, and whether the page was
/// cut at its count of elements. In the child, extracts and prints; `None` where there is
/// no /proc to read the peak from, and in the child.
#[expect(
    clippy::print_stdout,
    reason = "the child prints its figures for its parent to read"
)]
fn dense_page_growth(test: &str, links: usize) -> Option<(u64, bool)> {
    let page = |n: usize| -> String {
        std::iter::once("<title>Fan</title><main><p>Many links.</p>".into())
            .chain((0..n).map(|i| format!("<a href=\"/fan/{i}\">{i}</a>")))
            .collect()
    };
    if let Ok(n) = std::env::var(DENSE_CHILD) {
        let n: usize = n.parse().expect("a count");
        let warm = extract(&page(100), "text/html", &base());
        assert!(!warm.flags.elements_cut);
        drop(warm);
        let page = page(n);
        let before = status_kib("VmRSS:").expect("/proc/self/status");
        let out = extract(&page, "text/html", &base());
        let peak = status_kib("VmHWM:").expect("/proc/self/status");
        println!("grew-kib {}", peak.saturating_sub(before));
        println!("cut-count {}", u64::from(out.flags.elements_cut));
        return None;
    }
    status_kib("VmHWM:")?;
    let child = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(DENSE_CHILD, links.to_string())
        .env("MALLOC_ARENA_MAX", "1")
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(child.status.success(), "{stdout}");
    let grew = crate::support::reported_kib(&stdout, "grew-kib ");
    let cut = crate::support::reported_kib(&stdout, "cut-count ") == 1;
    Some((grew, cut))
}
