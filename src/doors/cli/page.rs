//! The page a person opens on a phone
//! (steward-guide(7), "A page to look at"): goals by status with bars for
//! criteria and budget, plan trees, who must do what, recent events and
//! spend, as one self-contained HTML file. Pure: the [`Page`]
//! `engine::report` gathers in, text out; the engine writes it.
//!
//! Goal text is written by agents, so every string from the store goes
//! through [`escape`], and the only links are to the page's own sections
//! and to a goal's `origin` when it is an `http(s)` address. The page has
//! no script and fetches nothing (a Content-Security-Policy says so to the
//! browser too); its little style is inline, and it reads the same without
//! it: headings, lists, `<progress>` bars with their numbers beside them.

use std::fmt::Write;

use chrono::{DateTime, Utc};

use crate::engine::report::Page;
use crate::model::plan::{NodeStatus, Plan, Tally};
use crate::model::{Goal, Run, Status, format_time};
use crate::text::{count, head, one_line};

/// The most events the page lists (the newest).
const MAX_EVENTS: usize = 50;
/// Longer free text (descriptions, outcomes, details) is cut to this.
const MAX_TEXT: usize = 400;
/// Open goals listed under each status, in this order; unknown statuses
/// (written by hand) follow.
const OPEN_ORDER: [Status; 5] = [
    Status::Active,
    Status::Stalled,
    Status::Verifying,
    Status::Blocked,
    Status::Paused,
];

const STYLE: &str = "\
:root{color-scheme:light dark}\
body{font:16px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:48rem;padding:0 .8rem 2rem;overflow-wrap:anywhere}\
h1{font-size:1.5rem;margin:.8rem 0 .2rem}h2{font-size:1.25rem;margin-top:1.6rem;border-bottom:2px solid #8884}\
h3{font-size:1.05rem;margin:1.2rem 0 .3rem}h4{font-size:1rem;margin:0 0 .2rem}\
nav ul{padding:0;margin:.4rem 0;display:flex;flex-wrap:wrap;gap:.3rem .9rem;list-style:none}\
article{border-left:4px solid #8886;padding:.1rem 0 .1rem .7rem;margin:.8rem 0}\
article.blocked,article.failed{border-color:#c33}article.stalled{border-color:#d80}\
article.verifying,article.completed{border-color:#2a2}article.paused{border-color:#46c}\
.meta,.dim{opacity:.75;font-size:.92rem}\
ul.bars{list-style:none;padding:0;margin:.3rem 0}\
ul.bars li{display:grid;grid-template-columns:6.8rem minmax(3rem,5.5rem) 1fr;align-items:center;gap:0 .5rem}\
progress{width:100%;height:.9rem}\
ul.plan,ul.plan ul{padding-left:1.1rem;margin:.2rem 0}\
code{font-size:.9rem;background:#8882;padding:0 .2rem;border-radius:3px}\
ol.events{padding-left:1.4rem}ol.events li{margin:.2rem 0}\
footer{margin-top:2rem;font-size:.85rem;opacity:.7}";

/// The whole page.
pub fn render(page: &Page) -> String {
    let mut html = String::with_capacity(16 * 1024);
    let open = &page.overview.goals;
    let waiting_for_you = page.overview.for_person.len();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta name=\"generator\" content=\"steward {}\">\n\
         <title>steward: {}, {} waiting for you</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        env!("CARGO_PKG_VERSION"),
        count(open.len(), "open goal", "open goals"),
        waiting_for_you,
    );
    header(&mut html, page);
    html.push_str("<main>\n");
    for_person(&mut html, page);
    open_goals(&mut html, page);
    closed_goals(&mut html, page);
    spend(&mut html, page);
    forecast(&mut html, page);
    machines(&mut html, page);
    events(&mut html, page);
    problems(&mut html, page);
    html.push_str("</main>\n");
    let _ = write!(
        html,
        "<footer><p>Made by <code>steward report --html</code> at {}. \
         UTC. A static page: it changes when it is made again.</p></footer>\n</body>\n</html>\n",
        time(page.now)
    );
    html
}

/// Escapes `text` for HTML text and quoted attribute values, replacing the
/// control characters HTML does not allow (line feeds and tabs stay).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// `text` on one line, cut to [`MAX_TEXT`], escaped.
fn short(text: &str) -> String {
    escape(&head(&one_line(text), MAX_TEXT))
}

/// A time people read (UTC, as the header says), with the exact one for
/// machines.
fn time(at: DateTime<Utc>) -> String {
    format!(
        "<time datetime=\"{}\">{}</time>",
        format_time(at),
        at.format("%Y-%m-%d %H:%M")
    )
}

/// An amount in dollars (a sum of nothing is `-0.0` in Rust: shown `$0.00`).
fn dollars(amount: f64) -> String {
    format!("${:.2}", amount + 0.0)
}

/// A time from the event log or a run record (RFC 3339 text).
fn time_text(at: &str) -> String {
    match DateTime::parse_from_rfc3339(at) {
        Ok(parsed) => time(parsed.with_timezone(&Utc)),
        Err(_) => escape(at),
    }
}

/// The anchor of a goal's section (labels are `a-z 0-9 - _`).
fn anchor(label: &str) -> String {
    format!("goal-{}", escape(label))
}

/// The address in `text` when it is a plain `http(s)` URL: the only links
/// the page makes from goal text.
fn web_address(text: &str) -> Option<&str> {
    let text = text.trim();
    let lower = text.get(..8).unwrap_or(text).to_ascii_lowercase();
    let plain = !text.is_empty()
        && (lower.starts_with("https://") || lower.starts_with("http://"))
        && !text.chars().any(|c| c.is_whitespace() || c.is_control());
    plain.then_some(text)
}

/// One bar: what it measures, a `<progress>` and the numbers in words
/// (only the numbers when there is no maximum to measure against).
fn bar(html: &mut String, what: &str, used: f64, max: f64, numbers: &str) {
    if max > 0.0 {
        let _ = writeln!(
            html,
            "<li><span class=\"what\">{what}</span> <progress value=\"{}\" max=\"{max}\">{}%</progress> <span>{numbers}</span></li>",
            used.clamp(0.0, max),
            percent(used, max)
        );
    } else {
        let _ = writeln!(
            html,
            "<li><span class=\"what\">{what}</span> <span></span> <span>{numbers}</span></li>"
        );
    }
}

/// Whole percent of `max` used, at most 100 (`max` is above 0).
fn percent(used: f64, max: f64) -> u64 {
    ((used / max) * 100.0).clamp(0.0, 100.0) as u64
}

fn header(html: &mut String, page: &Page) {
    let report = &page.overview;
    let counts: Vec<String> = report
        .counts
        .iter()
        .map(|(status, n)| format!("{n} {}", escape(status)))
        .collect();
    let counts = if counts.is_empty() {
        "no open goals".to_string()
    } else {
        counts.join(", ")
    };
    let _ = write!(
        html,
        "<header>\n<h1>steward</h1>\n<p>As of {} UTC (all times are UTC): {counts}; {} closed in all.<br>\n\
         The watchdog (<code>steward tick</code>) last ran: {}.</p>\n",
        time(page.now),
        report.closed,
        report
            .last_tick
            .as_deref()
            .map_or_else(|| "never".to_string(), time_text),
    );
    html.push_str("<nav aria-label=\"sections\"><ul>\n");
    let _ = writeln!(
        html,
        "<li><a href=\"#for-you\">Waiting for you ({})</a></li>",
        report.for_person.len()
    );
    let _ = writeln!(
        html,
        "<li><a href=\"#open\">Open goals ({})</a></li>",
        report.goals.len()
    );
    let _ = writeln!(
        html,
        "<li><a href=\"#closed\">Closed ({})</a></li>",
        page.closed.len()
    );
    html.push_str("<li><a href=\"#spend\">Spend</a></li>\n");
    if page.forecast.is_some() {
        html.push_str("<li><a href=\"#forecast\">Ahead</a></li>\n");
    }
    if !page.fleet.is_empty() {
        let _ = writeln!(
            html,
            "<li><a href=\"#machines\">Machines ({})</a></li>",
            page.fleet.len()
        );
    }
    html.push_str("<li><a href=\"#events\">Events</a></li>\n");
    html.push_str("</ul></nav>\n</header>\n");
}

fn for_person(html: &mut String, page: &Page) {
    let report = &page.overview;
    html.push_str("<section id=\"for-you\">\n<h2>Waiting for you</h2>\n");
    if report.for_person.is_empty() {
        html.push_str("<p>Nothing waits for a person.</p>\n");
    } else {
        html.push_str("<ul>\n");
        for item in &report.for_person {
            let _ = writeln!(
                html,
                "<li><a href=\"#{}\"><strong>{}</strong></a>: {}<br>run: <code>{}</code></li>",
                anchor(&item.label),
                escape(&item.label),
                short(&item.why),
                escape(&item.command)
            );
        }
        html.push_str("</ul>\n");
    }
    if !report.notify_failures.is_empty() {
        let _ = writeln!(
            html,
            "<p>The notifier failed: {} given up (see <code>notify.command</code>).</p>",
            count(
                report.notify_failures.len(),
                "notification",
                "notifications"
            )
        );
    }
    if !report.waiting.is_empty() {
        html.push_str("<h3>Parked</h3>\n<ul>\n");
        for (label, what) in &report.waiting {
            let _ = writeln!(
                html,
                "<li><a href=\"#{}\">{}</a> waits for {}</li>",
                anchor(label),
                escape(label),
                short(what)
            );
        }
        html.push_str("</ul>\n");
    }
    if !report.runs.is_empty() {
        html.push_str("<h3>Runs under way</h3>\n<ul>\n");
        for run in &report.runs {
            let _ = writeln!(
                html,
                "<li><code>{}</code> {} for <a href=\"#{}\">{}</a> ({}, since {}){}</li>",
                escape(&run.id),
                escape(&run.agent),
                anchor(&run.goal_label),
                escape(&run.goal_label),
                run.state_name(),
                time_text(run.started_at.as_deref().unwrap_or(&run.created_at)),
                worktree_text(run)
            );
        }
        html.push_str("</ul>\n");
    }
    html.push_str("</section>\n");
}

fn open_goals(html: &mut String, page: &Page) {
    let goals = &page.overview.goals;
    html.push_str("<section id=\"open\">\n<h2>Open goals</h2>\n");
    if goals.is_empty() {
        html.push_str("<p>No open goals.</p>\n");
    }
    let mut unknown: Vec<&Status> = goals
        .iter()
        .map(|g| &g.status)
        .filter(|s| matches!(s, Status::Unknown(_)))
        .collect();
    unknown.sort_by_key(|s| s.as_str());
    unknown.dedup();
    for status in OPEN_ORDER.iter().chain(unknown) {
        let mut group: Vec<&Goal> = goals.iter().filter(|g| g.status == *status).collect();
        if group.is_empty() {
            continue;
        }
        group.sort_by(|a, b| (a.priority.rank(), &a.label).cmp(&(b.priority.rank(), &b.label)));
        let _ = writeln!(
            html,
            "<h3>{} ({})</h3>",
            escape(status.as_str()),
            group.len()
        );
        for goal in group {
            goal_article(html, page, goal);
        }
    }
    html.push_str("</section>\n");
}

fn closed_goals(html: &mut String, page: &Page) {
    let _ = writeln!(
        html,
        "<section id=\"closed\">\n<h2>Closed since {}</h2>",
        time(page.since)
    );
    if page.closed.is_empty() {
        html.push_str("<p>No goal closed.</p>\n");
    }
    for goal in &page.closed {
        goal_article(html, page, goal);
    }
    html.push_str("</section>\n");
}

/// One goal: what it is, its bars, its criteria, why it waits, its plan.
fn goal_article(html: &mut String, page: &Page, goal: &Goal) {
    // Links from elsewhere on the page lead to open goals only.
    let id = if goal.status.is_terminal() {
        String::new()
    } else {
        format!(" id=\"{}\"", anchor(&goal.label))
    };
    let _ = write!(
        html,
        "<article{id} class=\"{}\">\n<h4>{} <span class=\"dim\">({})</span></h4>\n",
        escape(goal.status.as_str()),
        escape(&goal.title),
        escape(&goal.label),
    );
    let mut meta = vec![
        format!("<strong>{}</strong>", escape(goal.status.as_str())),
        format!("priority {}", escape(goal.priority.as_str())),
    ];
    if !goal.confirmed {
        meta.push("not confirmed".to_string());
    }
    if let Some(created) = goal.created_at {
        meta.push(format!("created {}", time(created)));
    }
    if let Some(closed) = goal.closed_at {
        meta.push(format!("closed {}", time(closed)));
    }
    if !goal.tags.is_empty() {
        let tags: Vec<String> = goal.tags.iter().map(|t| escape(t)).collect();
        meta.push(format!("tags {}", tags.join(", ")));
    }
    let _ = writeln!(html, "<p class=\"meta\">{}</p>", meta.join(" · "));
    record(html, goal);
    if let Some(reason) = &goal.closed_reason {
        let _ = writeln!(html, "<p>Why it closed: {}</p>", short(reason));
    }
    if !goal.description.trim().is_empty() {
        let _ = writeln!(html, "<p>{}</p>", short(&goal.description));
    }
    bars(html, page, goal);
    if let Some(escalation) = &goal.escalation {
        let _ = writeln!(
            html,
            "<p><strong>Blocked</strong> ({}): {}</p>",
            escape(&escalation.kind),
            short(&escalation.reason)
        );
    }
    if !goal.blockers.is_empty() {
        html.push_str("<p>Blockers:</p>\n<ul>\n");
        for blocker in &goal.blockers {
            let _ = writeln!(html, "<li>{}</li>", short(blocker));
        }
        html.push_str("</ul>\n");
    }
    if let Some(outcome) = &goal.progress.last_outcome {
        let when = goal
            .progress
            .last_assessed_at
            .map_or_else(String::new, |at| format!(" ({})", time(at)));
        let _ = writeln!(html, "<p>Last outcome{when}: {}</p>", short(outcome));
    }
    criteria(html, goal);
    if let Some(section) = &goal.plan {
        plan_tree(html, section.plan());
    }
    html.push_str("</article>\n");
}

/// Who the goal is for and where it came from (`owner`, `origin`; an
/// `origin` that is a web address is a link), its constraints, non-goals
/// and risks, and the last handoff's summary and next actions.
fn record(html: &mut String, goal: &Goal) {
    let record = &goal.record;
    if let Some(owner) = &record.owner {
        let _ = writeln!(html, "<p>Owner: {}</p>", short(owner));
    }
    for (name, list) in [
        ("Constraints", &record.constraints),
        ("Non-goals", &record.non_goals),
        ("Risks", &record.risks),
    ] {
        if !list.is_empty() {
            let items: Vec<String> = list.iter().map(|item| short(item)).collect();
            let _ = writeln!(html, "<p>{name}: {}</p>", items.join("; "));
        }
    }
    if let Some(handoff) = &goal.handoff {
        let _ = writeln!(html, "<p>Last handoff: {}</p>", short(&handoff.summary));
        if !handoff.next_actions.is_empty() {
            let items: Vec<String> = handoff.next_actions.iter().map(|a| short(a)).collect();
            let _ = writeln!(html, "<p>Next: {}</p>", items.join("; "));
        }
    }
    if let Some(origin) = record.origin.as_deref() {
        match web_address(origin) {
            Some(url) => {
                let _ = writeln!(
                    html,
                    "<p>Origin: <a href=\"{0}\" rel=\"noreferrer\">{0}</a></p>",
                    escape(url)
                );
            }
            None => {
                let _ = writeln!(html, "<p>Origin: {}</p>", short(origin));
            }
        }
    }
}

/// Criteria met, and the budget used against its maximum.
fn bars(html: &mut String, page: &Page, goal: &Goal) {
    let met = goal.criteria_met();
    let total = goal.criteria.len();
    let progress = &goal.progress;
    html.push_str("<ul class=\"bars\">\n");
    bar(
        html,
        "criteria",
        met as f64,
        total as f64,
        &format!("{met} of {total} met"),
    );
    if let Some(section) = &goal.plan {
        let Tally { done, total } = section.plan().overall();
        bar(
            html,
            "plan",
            done as f64,
            total as f64,
            &format!("{done} of {total} steps"),
        );
    }
    if !goal.status.is_terminal() {
        bar(
            html,
            "dispatches",
            progress.dispatches as f64,
            goal.budget.max_dispatches as f64,
            &format!("{} of {}", progress.dispatches, goal.budget.max_dispatches),
        );
        bar(
            html,
            "assessments",
            progress.assessments as f64,
            goal.budget.max_assessments as f64,
            &format!(
                "{} of {}",
                progress.assessments, goal.budget.max_assessments
            ),
        );
    }
    if let Some(max) = goal.bounds.max_iterations {
        let used = progress.iterations();
        bar(
            html,
            "iterations",
            used as f64,
            max as f64,
            &format!("{used} of {max}, a hard bound"),
        );
    }
    match goal.bounds.max_cost_usd {
        Some(max) => bar(
            html,
            "cost",
            progress.cost_usd,
            max,
            &format!(
                "{} of {}, a hard bound",
                dollars(progress.cost_usd),
                dollars(max)
            ),
        ),
        None if progress.cost_usd > 0.0 => {
            let _ = writeln!(
                html,
                "<li><span class=\"what\">cost</span> <span></span> <span>{}, no bound</span></li>",
                dollars(progress.cost_usd)
            );
        }
        None => {}
    }
    if let Some(deadline) = goal.bounds.deadline {
        let left = if deadline > page.now {
            "ahead"
        } else {
            "passed"
        };
        let _ = writeln!(
            html,
            "<li><span class=\"what\">deadline</span> <span></span> <span>{} ({left})</span></li>",
            time(deadline)
        );
    }
    html.push_str("</ul>\n");
}

fn criteria(html: &mut String, goal: &Goal) {
    if goal.criteria.is_empty() {
        return;
    }
    html.push_str("<ol class=\"criteria\">\n");
    for criterion in &goal.criteria {
        let (mark, word) = if criterion.met {
            ("☑", "met")
        } else {
            ("☐", "open")
        };
        let _ = writeln!(
            html,
            "<li><span aria-label=\"{word}\" title=\"{word}\">{mark}</span> {}</li>",
            short(&criterion.text)
        );
    }
    html.push_str("</ol>\n");
}

/// The plan as nested lists: each node with its status, and the share done
/// of those with children.
fn plan_tree(html: &mut String, plan: &Plan) {
    if plan.nodes.is_empty() {
        return;
    }
    let ready: Vec<&str> = plan.next_work().iter().map(|n| n.id.as_str()).collect();
    html.push_str("<details open>\n<summary>Plan</summary>\n<ul class=\"plan\">\n");
    for (index, _) in plan
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.parent.is_none())
    {
        plan_node(html, plan, index, &ready);
    }
    html.push_str("</ul>\n</details>\n");
}

fn plan_node(html: &mut String, plan: &Plan, index: usize, ready: &[&str]) {
    let node = &plan.nodes[index];
    let mark = match node.status {
        NodeStatus::Done => "☑",
        NodeStatus::Cancelled => "☒",
        _ => "☐",
    };
    let mut notes = vec![node.status.as_str().replace('_', " ")];
    if let Some(reason) = &node.reason {
        notes[0] = format!("{}: {}", notes[0], short(reason));
    }
    if ready.contains(&node.id.as_str()) && node.status != NodeStatus::InProgress {
        notes.push("ready".to_string());
    }
    if !node.after.is_empty() {
        let after: Vec<String> = node.after.iter().map(|a| escape(a)).collect();
        notes.push(format!("after {}", after.join(", ")));
    }
    if !node.children.is_empty() {
        let tally = plan.tally(index);
        notes.push(format!("{}% of {} done", tally.percent(), tally.total));
    }
    let _ = write!(
        html,
        "<li>{mark} <strong>{}</strong> {} <span class=\"dim\">({})</span>",
        escape(&node.id),
        escape(&node.name),
        notes.join("; ")
    );
    if !node.children.is_empty() {
        html.push_str("\n<ul>\n");
        for &child in &node.children {
            plan_node(html, plan, child, ready);
        }
        html.push_str("</ul>\n");
    }
    html.push_str("</li>\n");
}

fn spend(html: &mut String, page: &Page) {
    let report = &page.overview;
    html.push_str("<section id=\"spend\">\n<h2>Spend</h2>\n<ul class=\"bars\">\n");
    match report.daily_cap {
        Some(cap) => bar(
            html,
            "last 24h",
            report.spent_today,
            cap,
            &format!("{} of {} a day", dollars(report.spent_today), dollars(cap)),
        ),
        None => {
            let _ = writeln!(
                html,
                "<li><span class=\"what\">last 24h</span> <span></span> <span>{} on agent runs, no daily cap</span></li>",
                dollars(report.spent_today)
            );
        }
    }
    html.push_str("</ul>\n");
    if page.runs.is_empty() {
        let _ = writeln!(html, "<p>No agent run since {}.</p>", time(page.since));
    } else {
        let cost = page.runs.iter().fold(0.0, |total, r| total + r.cost_usd);
        let _ = writeln!(
            html,
            "<p>{} since {}, {} in all:</p>\n<ul>",
            count(page.runs.len(), "agent run", "agent runs"),
            time(page.since),
            dollars(cost)
        );
        for run in page.runs.iter().rev() {
            let _ = writeln!(
                html,
                "<li>{} <code>{}</code> {} for {} ({}, {}): {}{}</li>",
                time_text(&run.created_at),
                escape(&run.id),
                escape(&run.agent),
                escape(&run.goal_label),
                run.kind.as_str(),
                run.state_name(),
                dollars(run.cost_usd),
                worktree_text(run)
            );
        }
        html.push_str("</ul>\n");
    }
    html.push_str("</section>\n");
}

/// A run's worktree and branch (`dispatch.worktree`), for a run line.
/// The work ahead (`steward forecast`), goal by goal.
fn forecast(html: &mut String, page: &Page) {
    let Some(forecast) = &page.forecast else {
        return;
    };
    html.push_str("<section id=\"forecast\">\n<h2>Ahead</h2>\n<ul>\n");
    if forecast.goals.is_empty() {
        html.push_str("<li>No workable goal.</li>\n");
    }
    for goal in &forecast.goals {
        // Markup of the page's own: numbers, times, and words of steward's.
        let what = super::forecast::goal_words(goal, dollars, time);
        let _ = writeln!(
            html,
            "<li><a href=\"#{}\">{}</a>: {what}</li>",
            anchor(&goal.label),
            escape(&goal.label),
        );
    }
    html.push_str("</ul>\n");
    if let Some(at) = forecast.cap_reached {
        let _ = writeln!(
            html,
            "<p>The day's spend cap is reached about {}.</p>",
            time(at)
        );
    }
    html.push_str("<p class=\"dim\">From this store's own runs (<code>steward forecast</code> gives the basis of each): a forecast, not a promise.</p>\n");
    last_forecast(html, page);
    html.push_str("</section>\n");
}

/// The last forecast a person asked for, set beside what happened since.
fn last_forecast(html: &mut String, page: &Page) {
    let Some((kept, happened)) = &page.last_forecast else {
        return;
    };
    let _ = writeln!(
        html,
        "<h3>The forecast of {}, against what happened</h3>\n<ul>",
        time_text(&kept.at)
    );
    for goal in happened {
        let said = match (goal.goal.runs, goal.goal.cost_usd) {
            (Some(runs), Some(cost)) => format!(
                "forecast {}, {}{}",
                count(runs as usize, "run", "runs"),
                dollars(cost),
                goal.goal
                    .finish
                    .as_deref()
                    .map_or_else(String::new, |at| format!(", done about {}", time_text(at)))
            ),
            _ => "forecast unknown".to_string(),
        };
        let now = match goal.closed_at {
            Some(at) => format!("{} at {}", escape(&goal.status), time(at)),
            None => format!("still {}", escape(&goal.status)),
        };
        let _ = writeln!(
            html,
            "<li>{}: {said}; since: {}, {}, {now}</li>",
            escape(&goal.goal.label),
            count(goal.runs, "run", "runs"),
            dollars(goal.cost_usd)
        );
    }
    html.push_str("</ul>\n");
}

fn worktree_text(run: &Run) -> String {
    run.worktree.as_ref().map_or_else(String::new, |w| {
        format!(
            " on branch <code>{}</code> in <code>{}</code>",
            escape(&w.branch),
            escape(&w.path)
        )
    })
}

/// The machines that share the store, as `steward fleet` lists them:
/// stale ones first, each with its last pass, slots, agents and runs.
fn machines(html: &mut String, page: &Page) {
    if page.fleet.is_empty() {
        return;
    }
    html.push_str("<section id=\"machines\">\n<h2>Machines</h2>\n<ul>\n");
    for seen in &page.fleet {
        let marks = super::fleet::marks(seen);
        let marks = if marks.is_empty() {
            String::new()
        } else {
            format!(" <strong>({})</strong>", escape(&marks.join(", ")))
        };
        let _ = writeln!(
            html,
            "<li><strong>{}</strong>{marks}: {}</li>",
            escape(&seen.record.capacity.machine),
            escape(&super::fleet::details(seen))
        );
    }
    html.push_str("</ul>\n</section>\n");
}

fn events(html: &mut String, page: &Page) {
    let _ = writeln!(
        html,
        "<section id=\"events\">\n<h2>Events since {}</h2>",
        time(page.since)
    );
    if page.events.is_empty() {
        html.push_str("<p>Nothing happened.</p>\n</section>\n");
        return;
    }
    if page.events.len() > MAX_EVENTS {
        let _ = writeln!(
            html,
            "<p>The newest {MAX_EVENTS} of {} (<code>steward audit</code> has them all), newest first:</p>",
            page.events.len()
        );
    } else {
        html.push_str("<p>Newest first:</p>\n");
    }
    html.push_str("<ol class=\"events\" reversed>\n");
    for event in page.events.iter().rev().take(MAX_EVENTS) {
        let change = match (&event.from, &event.to) {
            (Some(from), Some(to)) if from != to => {
                format!(" {} → {}", escape(from), escape(to))
            }
            (None, Some(to)) => format!(" → {}", escape(to)),
            _ => String::new(),
        };
        let label = if event.label.is_empty() {
            "steward".to_string()
        } else {
            format!("<strong>{}</strong>", escape(&event.label))
        };
        let detail = if event.detail.is_empty() {
            String::new()
        } else {
            format!(": {}", short(&event.detail))
        };
        let _ = writeln!(
            html,
            "<li>{} {label} {} by {}{change}{detail}</li>",
            time_text(&event.ts),
            escape(&event.action),
            escape(&event.actor),
        );
    }
    html.push_str("</ol>\n</section>\n");
}

/// Goal and run files steward could not read: a person should know.
fn problems(html: &mut String, page: &Page) {
    if page.overview.problems.is_empty() {
        return;
    }
    html.push_str("<section id=\"problems\">\n<h2>Files steward could not read</h2>\n<ul>\n");
    for problem in &page.overview.problems {
        let _ = writeln!(html, "<li>{}</li>", short(problem));
    }
    html.push_str("</ul>\n<p>Run <code>steward doctor</code>.</p>\n</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_leaves_no_markup() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(escape("a\u{1b}[31mb\u{7}\n"), "a\u{FFFD}[31mb\u{FFFD}\n");
    }

    #[test]
    fn only_plain_web_addresses_become_links() {
        assert_eq!(
            web_address(" https://example.org/issues/18 "),
            Some("https://example.org/issues/18")
        );
        assert_eq!(
            web_address("HTTP://example.org"),
            Some("HTTP://example.org")
        );
        assert_eq!(web_address("javascript:alert(1)"), None);
        assert_eq!(web_address("data:text/html,<b>"), None);
        assert_eq!(web_address("https://a.org/ onmouseover=x"), None);
        assert_eq!(web_address("session 42"), None);
        assert_eq!(web_address("http"), None);
    }

    #[test]
    fn bars_stay_within_their_maximum() {
        let mut html = String::new();
        bar(&mut html, "cost", 30.0, 25.0, "$30.00 of $25.00");
        assert!(html.contains("value=\"25\" max=\"25\">100%"), "{html}");
        let mut html = String::new();
        bar(&mut html, "criteria", 0.0, 0.0, "0 of 0");
        assert!(!html.contains("<progress"), "{html}");
        assert_eq!(percent(1.0, 3.0), 33);
        assert_eq!(dollars(std::iter::empty::<f64>().sum()), "$0.00");
        assert_eq!(dollars(2.499), "$2.50");
    }
}
