//! The launchd agent (macOS): `~/Library/LaunchAgents/LABEL.plist`, loaded
//! into the person's GUI session with `launchctl bootstrap`. launchd runs
//! a pass missed while the Mac slept when it wakes.

use std::path::PathBuf;

use super::{Changed, Entry, Found, Scheduler};
use crate::context::Context;
use crate::error::Result;

/// The agent's label, which names its file too.
pub fn label(tag: &str) -> String {
    format!("io.github.goal-steward.tick.{tag}")
}

fn path(ctx: &Context, tag: &str) -> Result<PathBuf> {
    Ok(super::home(ctx)?
        .join("Library/LaunchAgents")
        .join(format!("{}.plist", label(tag))))
}

fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub fn plist(entry: &Entry) -> String {
    let mut arguments = format!(
        "\t\t<string>{}</string>\n",
        xml(&entry.exe.display().to_string())
    );
    for arg in entry.args() {
        arguments.push_str(&format!("\t\t<string>{}</string>\n", xml(&arg)));
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
         <!-- Written by `steward schedule install`; `steward schedule remove` takes it out. -->\n\
         <plist version=\"1.0\">\n\
         <dict>\n\
         \t<key>Label</key>\n\
         \t<string>{}</string>\n\
         \t<key>ProgramArguments</key>\n\
         \t<array>\n\
         {arguments}\
         \t</array>\n\
         \t<key>EnvironmentVariables</key>\n\
         \t<dict>\n\
         \t\t<key>PATH</key>\n\
         \t\t<string>{}</string>\n\
         \t</dict>\n\
         \t<key>StartInterval</key>\n\
         \t<integer>{}</integer>\n\
         \t<key>RunAtLoad</key>\n\
         \t<true/>\n\
         </dict>\n\
         </plist>\n",
        xml(&label(&entry.tag)),
        xml(&entry.path),
        entry.every.0,
    )
}

/// The person's GUI session, where their agents run.
fn domain() -> String {
    // SAFETY: getuid cannot fail and touches no memory.
    format!("gui/{}", unsafe { libc::getuid() })
}

pub fn install(ctx: &Context, entry: &Entry) -> Result<Changed> {
    let path = path(ctx, &entry.tag)?;
    let mut written = Vec::new();
    if super::write_if_changed(&path, &plist(entry))? {
        written.push(format!("wrote {}", path.display()));
    }
    let mut commands = Vec::new();
    let loaded = is_loaded(ctx, &entry.tag);
    if !written.is_empty() || !loaded {
        let domain = domain();
        let file = path.display().to_string();
        if loaded {
            // A changed agent is loaded again to be read again.
            let _ = super::run(ctx, "launchctl", &["bootout", &domain, &file], None);
        }
        let args = ["bootstrap", domain.as_str(), file.as_str()];
        let output = super::run(ctx, "launchctl", &args, None).map_err(|err| {
            crate::error::Error::Program(format!("wrote {file}, but cannot load it: {err}"))
        })?;
        if !output.status.success() {
            return Err(super::not_loaded(
                "launchctl",
                &args,
                &output,
                &written,
                "load it by hand, or run `steward schedule install --launchd` again",
            ));
        }
        commands.push(format!("launchctl {}", args.join(" ")));
    }
    Ok(Changed {
        scheduler: Scheduler::Launchd,
        written,
        commands,
        notes: Vec::new(),
    })
}

pub fn remove(ctx: &Context, tag: &str) -> Result<Changed> {
    let path = path(ctx, tag)?;
    let mut commands = Vec::new();
    if is_loaded(ctx, tag) {
        let args = [
            "bootout".to_string(),
            format!("{}/{}", domain(), label(tag)),
        ];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = super::run(ctx, "launchctl", &args, None)?;
        if !output.status.success() {
            return Err(super::not_loaded(
                "launchctl",
                &args,
                &output,
                &[],
                "the agent is still loaded",
            ));
        }
        commands.push(format!("launchctl {}", args.join(" ")));
    }
    let mut written = Vec::new();
    if super::remove_file(&path)? {
        written.push(format!("removed {}", path.display()));
    }
    Ok(Changed {
        scheduler: Scheduler::Launchd,
        written,
        commands,
        notes: Vec::new(),
    })
}

fn is_loaded(ctx: &Context, tag: &str) -> bool {
    let service = format!("{}/{}", domain(), label(tag));
    super::run(ctx, "launchctl", &["print", &service], None).is_ok_and(|o| o.status.success())
}

pub fn found(ctx: &Context, tag: &str) -> Vec<Found> {
    let Ok(path) = path(ctx, tag) else {
        return Vec::new();
    };
    let Ok(text) = crate::os::safe_file::read_to_string(&path) else {
        return Vec::new();
    };
    let interval = (text.split("<key>StartInterval</key>").nth(1))
        .and_then(|rest| rest.split("<integer>").nth(1)?.split("</integer>").next())
        .and_then(|secs| secs.trim().parse::<u64>().ok())
        .map(|secs| format!("every {}", crate::model::duration::HumanDuration(secs)))
        .unwrap_or_default();
    let active = is_loaded(ctx, tag);
    vec![Found {
        scheduler: Scheduler::Launchd,
        place: path.display().to_string(),
        when: interval,
        command: label(tag),
        ours: true,
        active,
    }]
}
