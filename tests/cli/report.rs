//! steward-guide(7), "A page to look at": `report --html DIR` writes one
//! self-contained page with every open goal, links only within itself (and
//! to a goal's web origin), goal text escaped, and it renders in a real
//! browser.

use std::path::{Path, PathBuf};

use crate::common::TestEnv;

fn fixture(name: &str) -> String {
    format!("{}/fixtures/plans/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The one link the page may make to elsewhere: the origin of `tracked`.
const ORIGIN: &str = "https://example.org/issues/18";

/// A store with a goal in each open status, one closed, one with a plan and
/// one with an origin.
fn store() -> TestEnv {
    let env = TestEnv::initialised();
    env.steward()
        .args(["add", "ship-docs", "--title", "Publish the docs"])
        .args([
            "--criterion",
            "Docs build",
            "--criterion",
            "Docs are online",
        ])
        .args(["--max-cost-usd", "10", "--priority", "high", "--confirmed"])
        .assert()
        .success();
    env.steward()
        .args(["assess", "ship-docs", "--summary", "built the docs"])
        .args(["--met", "1", "--cost-usd", "2.5"])
        .assert()
        .success();
    env.steward()
        .args(["add", "health", "--title", "Ship the health endpoint"])
        .args(["--criterion", "GET /health answers 200"])
        .assert()
        .success();
    env.steward()
        .args(["plan", "import", "health", &fixture("valid.json")])
        .assert()
        .success();
    env.steward()
        .args(["work", "health", "S1.1.1", "done"])
        .assert()
        .success();
    env.steward()
        .args(["add", "rotate-keys", "--title", "Rotate the signing keys"])
        .args(["--criterion", "New keys in use"])
        .assert()
        .success();
    env.steward()
        .args(["assess", "rotate-keys", "--summary", "no access"])
        .args(["--stuck", "--blocker", "needs the vault password"])
        .assert()
        .success();
    env.steward()
        .args(["add", "later", "--title", "Tidy the wiki"])
        .args(["--criterion", "Wiki tidy"])
        .assert()
        .success();
    env.steward().args(["pause", "later"]).assert().success();
    env.steward()
        .args(["add", "old", "--title", "Migrate the old cluster"])
        .args(["--criterion", "Cluster gone"])
        .assert()
        .success();
    env.steward()
        .args(["abandon", "old", "--reason", "the cluster was sold"])
        .assert()
        .success();
    env.write(
        "state/goals/tracked.md",
        &format!(
            "---\nlabel: tracked\ntitle: Answer the issue\nstatus: stalled\n\
             owner: ops team\norigin: {ORIGIN}\n---\n\n\
             ## Acceptance criteria\n\n- [ ] Issue answered\n"
        ),
    );
    env.write(
        "state/goals/someday.md",
        "---\nlabel: someday\ntitle: Learn the cello\nstatus: someday\n---\n\n\
         ## Acceptance criteria\n\n- [ ] A tune played\n",
    );
    env
}

/// The open goals of `store`: (label, title).
const OPEN: [(&str, &str); 6] = [
    ("ship-docs", "Publish the docs"),
    ("health", "Ship the health endpoint"),
    ("rotate-keys", "Rotate the signing keys"),
    ("later", "Tidy the wiki"),
    ("tracked", "Answer the issue"),
    ("someday", "Learn the cello"),
];

/// Runs `report --html DIR` and returns the page.
fn report(env: &TestEnv, dir: &Path) -> String {
    let output = env
        .steward()
        .args(["report", "--html"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read_to_string(dir.join("index.html")).unwrap()
}

/// A tag of the page: its name and attributes (values as written).
#[derive(Debug)]
struct Tag {
    name: String,
    attributes: Vec<(String, String)>,
}

/// Every opening tag of `html`. Goal text is escaped, so every `<` in the
/// page starts a tag steward wrote.
fn tags(html: &str) -> Vec<Tag> {
    let mut tags = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let end = start + rest[start..].find('>').expect("every tag is closed");
        let inner = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if inner.starts_with('/') || inner.starts_with('!') {
            continue;
        }
        let name_end = inner.find(char::is_whitespace).unwrap_or(inner.len());
        let mut tag = Tag {
            name: inner[..name_end].to_ascii_lowercase(),
            attributes: Vec::new(),
        };
        let mut attrs = inner[name_end..].trim_start();
        while !attrs.is_empty() {
            let key_end = attrs
                .find(|c: char| c == '=' || c.is_whitespace())
                .unwrap_or(attrs.len());
            let key = attrs[..key_end].to_ascii_lowercase();
            attrs = &attrs[key_end..];
            let value = if let Some(quoted) = attrs.strip_prefix("=\"") {
                let close = quoted.find('"').expect("attribute values are quoted");
                attrs = &quoted[close + 1..];
                quoted[..close].to_string()
            } else {
                String::new()
            };
            tag.attributes.push((key, value));
            attrs = attrs.trim_start();
        }
        tags.push(tag);
    }
    tags
}

/// The page loads nothing and links only within itself or to `origins`.
fn assert_self_contained(html: &str, origins: &[&str]) {
    const ALLOWED: [&str; 29] = [
        "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "h4", "p",
        "br", "code", "nav", "ul", "ol", "li", "a", "main", "section", "article", "span", "strong",
        "time", "progress", "details", "summary", "footer",
    ];
    let tags = tags(html);
    let ids: Vec<&str> = tags
        .iter()
        .flat_map(|t| &t.attributes)
        .filter(|(k, _)| k == "id")
        .map(|(_, v)| v.as_str())
        .collect();
    for tag in &tags {
        assert!(ALLOWED.contains(&tag.name.as_str()), "tag {tag:?}");
        for (key, value) in &tag.attributes {
            assert!(
                key != "src" && key != "style" && key != "srcset" && !key.starts_with("on"),
                "attribute {key} in {tag:?}"
            );
            if key == "href" {
                match value.strip_prefix('#') {
                    Some(id) => assert!(ids.contains(&id), "link to a missing #{id}"),
                    None => assert!(origins.contains(&value.as_str()), "link out: {value}"),
                }
            }
        }
    }
    let style_start = html.find("<style>").unwrap();
    let style = &html[style_start..html.find("</style>").unwrap()];
    for loads in ["url(", "@import", "@font-face"] {
        assert!(!style.contains(loads), "the style loads something: {loads}");
    }
    assert!(html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""));
    assert!(html.contains("<meta name=\"viewport\" content=\"width=device-width"));
}

#[test]
fn the_page_shows_every_open_goal_and_links_nowhere_else() {
    let env = store();
    let site = env.path("site");
    let html = report(&env, &site);
    for (label, title) in OPEN {
        assert!(
            html.contains(&format!("<article id=\"goal-{label}\"")),
            "{label} missing"
        );
        assert!(html.contains(&format!("<h4>{title} ")), "{title} missing");
    }
    assert_self_contained(&html, &[ORIGIN]);
    // Open goals by status, in the order a person reads them.
    let at = |text: &str| html.find(text).unwrap_or_else(|| panic!("{text}"));
    assert!(at("<h3>active (2)</h3>") < at("<h3>stalled (1)</h3>"));
    assert!(at("<h3>stalled (1)</h3>") < at("<h3>blocked (1)</h3>"));
    assert!(at("<h3>blocked (1)</h3>") < at("<h3>paused (1)</h3>"));
    assert!(at("<h3>paused (1)</h3>") < at("<h3>someday (1)</h3>"));
    assert!(at("<h3>someday (1)</h3>") < at("<section id=\"closed\">"));
    // The closed goal, after the open ones.
    assert!(at("<section id=\"closed\">") < at("Migrate the old cluster"));
    assert!(html.contains("Why it closed: the cluster was sold"));
    // Bars: criteria, plan, budget, cost against its bound.
    assert!(
        html.contains("<progress value=\"1\" max=\"2\">50%</progress> <span>1 of 2 met</span>")
    );
    assert!(
        html.contains("<progress value=\"1\" max=\"4\">25%</progress> <span>1 of 4 steps</span>")
    );
    assert!(html.contains("<progress value=\"2.5\" max=\"10\">25%</progress> <span>$2.50 of $10.00, a hard bound</span>"));
    assert!(
        html.contains("<span class=\"what\">dispatches</span> <progress value=\"0\" max=\"20\">")
    );
    // The plan tree, nested.
    assert!(html.contains("<li>☑ <strong>S1.1.1</strong> Add the route"));
    assert!(html.contains("<strong>S1.1.2</strong> Return the build id <span class=\"dim\">(todo; ready; after S1.1.1)</span>"));
    // Who must do what, with the command.
    assert!(html.contains(
        "<a href=\"#goal-rotate-keys\"><strong>rotate-keys</strong></a>: blocked (agent)"
    ));
    assert!(
        html.contains("run: <code>steward unblock rotate-keys --reason &quot;...&quot;</code>")
    );
    assert!(html.contains("<li>needs the vault password</li>"));
    // The goal record, with its origin as the one link out.
    assert!(html.contains("<p>Owner: ops team</p>"));
    assert!(html.contains(&format!(
        "<p>Origin: <a href=\"{ORIGIN}\" rel=\"noreferrer\">{ORIGIN}</a></p>"
    )));
    // Events, newest first, and spend.
    assert!(
        at("<strong>old</strong> abandoned by user")
            < at("<strong>ship-docs</strong> created by user")
    );
    assert!(html.contains("$0.00 of $20.00 a day"), "the default cap");
    assert!(html.contains("<title>steward: 6 open goals, 1 waiting for you</title>"));
}

#[test]
fn the_page_is_the_same_for_the_same_store_and_clock_and_changes_nothing() {
    let env = store();
    let outside = tempfile::tempdir().unwrap();
    // Caches (what plans were checked) are machine state, not the store.
    let caches = env.path("state/cache");
    let _ = std::fs::remove_dir_all(&caches);
    let before = env.snapshot();
    let first = report(&env, &outside.path().join("a"));
    let second = report(&env, &outside.path().join("b/c"));
    assert_eq!(first, second);
    let _ = std::fs::remove_dir_all(&caches);
    env.assert_unchanged(&before);
    assert!(first.contains("<time datetime=\"2026-11-21T04:00:00Z\">2026-11-21 04:00</time>"));
}

#[test]
fn report_prints_where_it_wrote_and_fails_where_it_cannot() {
    let env = store();
    env.steward()
        .args(["report", "--html", "site", "--json"])
        .assert()
        .success()
        .stdout("{\"schema_version\":1,\"path\":\"site/index.html\",\"open_goals\":6}\n");
    env.steward()
        .args(["report", "--html", "site"])
        .assert()
        .success()
        .stdout("wrote site/index.html (6 open goals)\n");
    env.write("plain-file", "not a directory\n");
    env.steward()
        .args(["report", "--html", "plain-file"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::contains(
            "plain-file: cannot create directory",
        ));
    env.steward()
        .args(["report", "--html", "site", "--since", "yesterday-ish"])
        .assert()
        .code(2);
    let elsewhere = tempfile::tempdir().unwrap();
    let mut cmd = env.steward();
    cmd.current_dir(elsewhere.path())
        .args(["report", "--html", "site"])
        .assert()
        .code(1);
    assert!(!elsewhere.path().join("site").exists());
}

#[test]
fn hostile_goal_text_cannot_add_markup() {
    let env = TestEnv::initialised();
    env.steward()
        .args(["add", "hostile", "--title", "<script>alert(1)</script>"])
        .args(["--criterion", "<img src=x onerror=alert(1)>"])
        .args([
            "--description",
            "</article><iframe src=\"https://evil.example/\"></iframe>",
        ])
        .assert()
        .success();
    env.steward()
        .args(["update", "hostile", "--blocker"])
        .arg("\"><a href=\"https://evil.example/\">click</a>")
        .assert()
        .success();
    env.write(
        "state/goals/sneaky.md",
        "---\nlabel: sneaky\ntitle: \"Tom & Jerry's <b>\"\norigin: \"javascript:alert(document.cookie)\"\n\
         owner: '<style>body{display:none}</style>'\n---\n\n\
         ## Acceptance criteria\n\n- [ ] x\n",
    );
    env.write(
        "state/goals/quoted.md",
        "---\nlabel: quoted\ntitle: A link that breaks out\n\
         origin: 'https://evil.example/\" onmouseover=\"alert(1)'\n---\n\n\
         ## Acceptance criteria\n\n- [ ] x\n",
    );
    let html = report(&env, &env.path("site"));
    assert_self_contained(&html, &[]);
    for escaped in [
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "&lt;img src=x onerror=alert(1)&gt;",
        "&lt;/article&gt;&lt;iframe src=&quot;https://evil.example/&quot;&gt;&lt;/iframe&gt;",
        "&quot;&gt;&lt;a href=&quot;https://evil.example/&quot;&gt;click&lt;/a&gt;",
        "Tom &amp; Jerry&#39;s &lt;b&gt;",
        "Origin: javascript:alert(document.cookie)",
        "Owner: &lt;style&gt;body{display:none}&lt;/style&gt;",
        "Origin: https://evil.example/&quot; onmouseover=&quot;alert(1)",
    ] {
        assert!(html.contains(escaped), "{escaped} missing");
    }
    assert_eq!(html.matches("<style>").count(), 1);
}

/// A headless browser to render the page with: `STEWARD_TEST_BROWSER`, or
/// Chromium or Chrome on PATH.
fn browser() -> Option<PathBuf> {
    if let Some(browser) = std::env::var_os("STEWARD_TEST_BROWSER").filter(|b| !b.is_empty()) {
        return Some(PathBuf::from(browser));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
    .find(|candidate| candidate.is_file())
}

/// Runs `browser` headless on `page` with a phone's window and `args`;
/// its stdout. Killed after two minutes.
fn headless(browser: &Path, profile: &Path, page: &Path, args: &[&str]) -> Vec<u8> {
    let mut child = std::process::Command::new(browser)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", profile)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.join("data").display()
        ))
        .arg("--window-size=412,915")
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|err| panic!("{}: {err}", browser.display()));
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut { stdout }, &mut bytes).unwrap();
        bytes
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(
                status.success(),
                "{} exited with {status}",
                browser.display()
            );
            break;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{} did not finish in two minutes", browser.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    reader.join().unwrap()
}

#[test]
fn the_page_renders_in_a_real_browser_on_a_phone() {
    let Some(browser) = browser() else {
        eprintln!(
            "SKIPPED the_page_renders_in_a_real_browser_on_a_phone: no chromium, \
             chromium-browser or google-chrome on PATH (install one, e.g. \
             `apt-get install chromium`, or set STEWARD_TEST_BROWSER)"
        );
        return;
    };
    let env = store();
    env.write(
        "state/goals/hostile.md",
        "---\nlabel: hostile\ntitle: \"<script>document.title='x'</script>\"\n---\n\n\
         ## Acceptance criteria\n\n- [ ] <img src=x onerror=alert(1)>\n",
    );
    let site = env.path("site");
    report(&env, &site);
    let page = site.join("index.html").canonicalize().unwrap();
    let profile = tempfile::tempdir().unwrap();

    let shot = profile.path().join("phone.png");
    headless(
        &browser,
        profile.path(),
        &page,
        &[&format!("--screenshot={}", shot.display())],
    );
    let png = std::fs::read(&shot).expect("the browser wrote a screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert_eq!((width, height), (412, 915));
    // A blank page of that size is about 3 KB; text and bars make it more.
    assert!(
        png.len() > 20_000,
        "the screenshot looks blank: {} bytes",
        png.len()
    );

    let dom = String::from_utf8(headless(&browser, profile.path(), &page, &["--dump-dom"]))
        .expect("the DOM is UTF-8");
    for (_, title) in OPEN {
        assert!(dom.contains(title), "the browser's page lacks {title}");
    }
    assert!(dom.contains("<progress value=\"1\" max=\"2\">"));
    assert!(dom.contains("&lt;script&gt;document.title='x'&lt;/script&gt;"));
    assert!(!dom.contains("<script") && !dom.contains("<img"), "{dom}");
    assert!(dom.contains("<title>steward: 7 open goals"));
    eprintln!(
        "rendered with {}: a {width}x{height} screenshot of {} bytes",
        browser.display(),
        png.len()
    );
}
