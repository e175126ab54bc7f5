//! Seals: what steward last wrote to each goal file on this machine, bound
//! to this machine's key. A goal file whose bytes are not what its seal
//! says was changed outside steward (by hand, by an agent, by a plain
//! `git pull`); one with no seal was put there outside steward. Judging
//! such a goal waits for a person (`crate::engine::trust`).
//!
//! `state/seals/open/<label>` seals an open goal, `state/seals/closed/<id>`
//! a closed one, each naming the goal's id and label and the SHA-256 of the
//! file's bytes, under a MAC of the machine key: a seal an agent edits, or
//! moves from `closed/` to `open/`, no longer verifies. `vanished/<label>`
//! keeps the seal of an open goal whose file disappeared outside steward
//! until a person has looked, so that its label is not taken meanwhile.
//! Seals are machine state (git ignores them), written without waiting for
//! the disk: a crash that loses one is repaired from the event log, which
//! records the same hash under the same key.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::events::Signer;
use super::key::{self, Domain, MachineKey, PublicKey, sha256};
use super::{GoalFile, LoadedGoal, Store, atomic};
use crate::error::{Error, Result};
use crate::os::safe_file as safe;

pub use super::paths::Place;

/// What steward wrote last to one goal file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seal {
    pub id: String,
    pub label: String,
    pub sha256: String,
}

/// A goal file against its seal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SealCheck {
    /// The bytes are the ones steward wrote.
    Matches,
    /// Steward wrote other bytes (the seal says which hash).
    Differs(Seal),
    /// Steward wrote this file under another id: the id was changed.
    OtherGoal(Seal),
    /// No seal: the file was put there outside steward.
    Missing,
    /// A seal that does not verify: written or changed outside steward.
    Forged(String),
    /// Seals are not kept for this store on this machine yet, or the key
    /// cannot be had: nothing to compare with.
    Unknown,
}

/// The machine key, loaded once when first needed, and this machine's
/// name in the store.
#[derive(Debug, Clone, Default)]
pub struct Keyring {
    dir: Option<PathBuf>,
    machine: String,
    /// The key as kept, its MACs bound to no store: what seals and lists
    /// written before MACs were bound to their store verify with.
    key: Arc<OnceLock<std::result::Result<MachineKey, String>>>,
    /// Whether the store's marker was written by a steward before MACs
    /// were bound to their store: only then is a seal of that time read.
    legacy_marker: Arc<std::sync::atomic::AtomicBool>,
    /// The store whose records this keyring MACs, and the key bound to it.
    store: Option<PathBuf>,
    bound: Arc<OnceLock<std::result::Result<MachineKey, String>>>,
    trusted: Arc<OnceLock<BTreeMap<String, PublicKey>>>,
    /// Goals' changes read from the log for many goals at once
    /// ([`Store::prepare_chains`]).
    chains: Arc<std::sync::Mutex<Option<super::events::Chains>>>,
    /// What the last `tick` found sealed ([`Store::use_seal_cache`]).
    sealed_files: Arc<std::sync::Mutex<Option<SealedFiles>>>,
    /// The open goals this command found as steward wrote them, for the
    /// next pass ([`Store::save_seal_cache`]).
    matched: Arc<std::sync::Mutex<SealedFiles>>,
    /// The store root whose marker this command found sealed (or wrote):
    /// checked once, not once a goal. Only a sealed one is remembered: a
    /// store not sealed yet may be sealed by the next write.
    sealed_root: Arc<OnceLock<PathBuf>>,
}

/// Goal files a pass found as steward wrote them, by label: the goal's id,
/// the size, times and inode the file had, and the SHA-256 of its bytes. A
/// file whose `stat` says the same was not replaced since (no one can set
/// a change time) and need not be read against its seal; its bytes are
/// still hashed, since a write through a shared mapping can change them
/// and leave the times as they were.
#[derive(Debug, Default)]
struct SealedFiles(std::collections::HashMap<String, (String, FileStamp, String)>);

/// What `stat` says of a file that only a write changes.
type FileStamp = (u64, u128, u64, i64, i64);

fn stamp_of(loaded: &LoadedGoal) -> Option<FileStamp> {
    let (size, modified) = loaded.file.stamp?;
    let identity = loaded.file.identity?;
    let modified = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((
        size,
        modified,
        identity.inode,
        identity.changed.0,
        identity.changed.1,
    ))
}

/// The first line of `state/cache/sealed`; a file with another is not read.
const SEALED_FILES_HEADER: &str = "steward sealed files 2";

/// Where `tick` keeps [`SealedFiles`] (machine-local, bound to the key;
/// delete it and the next pass reads every seal).
fn sealed_files_path(state_dir: &Path) -> PathBuf {
    state_dir.join("cache").join("sealed")
}

impl Keyring {
    /// The key kept in `dir` (`~/.config/steward`), for machine `machine`.
    pub fn at(dir: PathBuf, machine: &str) -> Keyring {
        Keyring {
            dir: Some(dir),
            machine: machine_name(machine),
            key: Arc::default(),
            legacy_marker: Arc::default(),
            store: None,
            bound: Arc::default(),
            trusted: Arc::default(),
            chains: Arc::default(),
            sealed_files: Arc::default(),
            matched: Arc::default(),
            sealed_root: Arc::default(),
        }
    }

    /// This machine's name, as its events are signed.
    pub fn machine(&self) -> &str {
        &self.machine
    }

    /// The same key, its MACs bound to the store at `absolute_root`.
    pub fn for_store(self, absolute_root: &Path) -> Keyring {
        Keyring {
            store: Some(absolute_root.to_path_buf()),
            bound: Arc::default(),
            ..self
        }
    }

    /// The same key, for machine `machine` (once the configuration says
    /// its name).
    pub fn named(self, machine: &str) -> Keyring {
        Keyring {
            machine: machine_name(machine),
            ..self
        }
    }

    /// Whether the store at `absolute_root` is sealed on this machine: see
    /// [`Store::sealed_here`].
    pub fn seals(&self, absolute_root: &Path) -> bool {
        self.marker_of(absolute_root) != Marker::Absent
    }

    /// What this machine's marker for the store at `absolute_root` says.
    fn marker_of(&self, absolute_root: &Path) -> Marker {
        if self
            .sealed_root
            .get()
            .is_some_and(|root| root == absolute_root)
        {
            return Marker::Sealed;
        }
        // Sealed with the key there is now: a key made anew (the old one
        // removed) seals the store again from scratch.
        let Some(path) = self.marker(absolute_root) else {
            return Marker::Absent;
        };
        let Ok(key) = self.key() else {
            return Marker::Absent;
        };
        let Ok(Some(text)) = safe::read_text(&path, 4096) else {
            return Marker::Absent;
        };
        match marker_mac(&text) {
            Some(mac) if key.verifies(Domain::Store, &[root_bytes(absolute_root)], mac) => {
                self.remember_sealed(absolute_root);
                Marker::Sealed
            }
            // Written before MACs were bound to their store: given the
            // bound MAC in its place.
            Some(mac)
                if self.unbound_key().is_ok_and(|legacy| {
                    legacy.verifies(Domain::Store, &[root_bytes(absolute_root)], mac)
                }) =>
            {
                let kept: String = (text.lines())
                    .filter(|line| !line.starts_with("mac "))
                    .map(|line| format!("{line}\n"))
                    .collect();
                (self.legacy_marker).store(true, std::sync::atomic::Ordering::Relaxed);
                Marker::SealedWithoutMac(kept)
            }
            Some(_) => Marker::Absent,
            // Written before markers had a MAC: the key's public half,
            // which costs a curve multiplication to work out.
            None if (text.lines()).any(|line| line == format!("key {}", key.public_hex())) => {
                (self.legacy_marker).store(true, std::sync::atomic::Ordering::Relaxed);
                Marker::SealedWithoutMac(text)
            }
            None => Marker::Absent,
        }
    }

    /// Remembers, for the rest of this command, that the store at
    /// `absolute_root` is sealed here.
    fn remember_sealed(&self, absolute_root: &Path) {
        let _ = self.sealed_root.set(absolute_root.to_path_buf());
    }

    /// The file that says the store at `absolute_root` is sealed here:
    /// one per store root in `~/.config/steward/stores/`, named by the
    /// hash of the root's path.
    fn marker(&self, absolute_root: &Path) -> Option<PathBuf> {
        let root = absolute_root.to_string_lossy();
        let name = &key::sha256(root.as_bytes())[..32];
        Some(self.dir()?.join("stores").join(name))
    }

    /// What a person on this machine accepted of the configuration files
    /// of the store at `absolute_root`: `None` before the store is sealed
    /// here. Kept beside the store's marker, with the key and out of the
    /// store, so that an agent that can write the store cannot remove it.
    pub fn accepted_config(&self, absolute_root: &Path) -> Option<AcceptedConfig> {
        if !self.seals(absolute_root) {
            return None;
        }
        let verified = (|| {
            let key = self.key().ok()?;
            let path = self.accepted_config_path(absolute_root)?;
            let text = safe::read_text(&path, 1024 * 1024).ok()??;
            let (body, mac) = text.rsplit_once("mac ")?;
            key.verifies(
                Domain::AcceptedConfig,
                &[root_bytes(absolute_root), body.as_bytes()],
                mac.trim(),
            )
            .then(|| body.to_string())
        })();
        Some(match verified {
            Some(said) => AcceptedConfig::Verified(said),
            None => AcceptedConfig::Lost,
        })
    }

    /// The command checks a person on this machine accepted for the store
    /// at `absolute_root`, as [`command_digest`]s: none before the store is
    /// sealed here, or when the record is missing or does not verify.
    /// Kept beside the store's marker, as the configuration is.
    pub fn accepted_commands(&self, absolute_root: &Path) -> BTreeSet<String> {
        (|| {
            let key = self.key().ok()?;
            let path = self.marker(absolute_root)?.with_extension("commands");
            let text = safe::read_text(&path, 16 * 1024 * 1024).ok()??;
            let (body, mac) = text.rsplit_once("mac ")?;
            key.verifies(
                Domain::AcceptedCommands,
                &[root_bytes(absolute_root), body.as_bytes()],
                mac.trim(),
            )
            .then(|| body.lines().map(str::to_string).collect())
        })()
        .unwrap_or_default()
    }

    /// Where this machine's record of what it appended to the store's
    /// event log is kept: beside its marker (`store::log_mark`).
    pub(super) fn log_mark_path(&self, absolute_root: &Path) -> Option<PathBuf> {
        Some(self.marker(absolute_root)?.with_extension("log"))
    }

    /// Where what a person accepted of a store's configuration is kept:
    /// beside its marker.
    fn accepted_config_path(&self, absolute_root: &Path) -> Option<PathBuf> {
        let marker = self.marker(absolute_root)?;
        Some(marker.with_extension("config"))
    }

    /// Who signs this machine's events, when the key can be had.
    pub fn signer(&self) -> Option<Signer<'_>> {
        Some(Signer {
            key: self.key().ok()?,
            machine: &self.machine,
        })
    }

    /// The key directory, when there is a home to keep it in.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// This machine's key, its MACs bound to the keyring's store.
    pub fn key(&self) -> Result<&MachineKey> {
        let Some(store) = &self.store else {
            return self.unbound_key();
        };
        let bound = self.bound.get_or_init(|| {
            self.unbound_key()
                .map(|key| key.bound_to_store(store))
                .map_err(|err| match err {
                    Error::Key(why) => why,
                    other => other.to_string(),
                })
        });
        bound.as_ref().map_err(|why| Error::Key(why.clone()))
    }

    /// The key as kept: for what was MACed before MACs were bound to their
    /// store.
    fn unbound_key(&self) -> Result<&MachineKey> {
        let loaded = self.key.get_or_init(|| match &self.dir {
            Some(dir) => MachineKey::load_or_create(dir),
            None => Err("no home directory to keep steward's machine key in".to_string()),
        });
        loaded.as_ref().map_err(|why| Error::Key(why.clone()))
    }
}

/// What a store's marker in `~/.config/steward/stores/` says.
#[derive(Debug, PartialEq, Eq)]
enum Marker {
    /// None, or not by this machine's key for this root: not sealed here.
    Absent,
    Sealed,
    /// Sealed, by a marker written before markers had a MAC (its text).
    SealedWithoutMac(String),
}

/// The MAC of the store's root a marker keeps, as its line.
fn marker_mac_line(key: &MachineKey, absolute_root: &Path) -> String {
    let mac = key.mac(Domain::Store, &[root_bytes(absolute_root)]);
    format!("mac {mac}\n")
}

/// The MAC line of a store's marker, when it has one.
fn marker_mac(text: &str) -> Option<&str> {
    text.lines().find_map(|line| line.strip_prefix("mac "))
}

/// A store root as its marker's MAC covers it.
pub(super) fn root_bytes(absolute_root: &Path) -> &[u8] {
    absolute_root.as_os_str().as_encoded_bytes()
}

/// A seal file is a few lines; anything larger is not one.
const SEAL_BYTES: u64 = 4096;

impl Store {
    fn seals_dir(&self) -> PathBuf {
        self.state_dir.join("seals")
    }

    /// The seal file of a goal: open ones by label, closed ones by id.
    pub fn seal_path(&self, place: Place, label: &str, id: &str) -> PathBuf {
        let name = match place {
            Place::Open | Place::Vanished => label,
            Place::Closed => id,
        };
        self.seals_dir().join(place.dir_name()).join(name)
    }

    /// Where `loaded` lives: among the closed goals or the open ones.
    pub fn place_of(&self, path: &Path) -> Place {
        if atomic::parent(path) == self.closed_dir {
            Place::Closed
        } else {
            Place::Open
        }
    }

    /// The seal at `path` (one of `place`), verified.
    fn read_seal(&self, key: &MachineKey, place: Place, path: &Path) -> SealRead {
        let text = match safe::read_text(path, SEAL_BYTES) {
            Ok(Some(text)) => text,
            Ok(None) => return SealRead::Missing,
            Err(err) => return SealRead::Forged(format!("{}: {err}", self.relative(path))),
        };
        let mut fields = text.lines();
        let mut field = |name: &str| {
            fields
                .next()
                .and_then(|line| line.strip_prefix(name))
                .and_then(|rest| rest.strip_prefix(' '))
                .map(str::to_string)
        };
        let parsed = (|| {
            let version = field("steward")?;
            Some((
                version,
                field("id")?,
                field("label")?,
                field("sha256")?,
                field("mac")?,
            ))
        })();
        // "seal 1": written before MACs were bound to their store, read
        // only while the store's marker is of that time too (its first
        // write by this steward writes every such seal anew, bound).
        let legacy = (self.keys.legacy_marker).load(std::sync::atomic::Ordering::Relaxed);
        let key = match parsed.as_ref().map(|p| p.0.as_str()) {
            Some("seal 2") => key,
            Some("seal 1") if legacy => match self.keys.unbound_key() {
                Ok(legacy) => legacy,
                Err(_) => key,
            },
            _ => return SealRead::Forged(format!("{}: not a seal", self.relative(path))),
        };
        let Some((_, id, label, sha256, mac)) = parsed else {
            return SealRead::Forged(format!("{}: not a seal", self.relative(path)));
        };
        let place_name = place.dir_name().as_bytes();
        if !key.verifies(
            Domain::Seal,
            &[
                place_name,
                id.as_bytes(),
                label.as_bytes(),
                sha256.as_bytes(),
            ],
            &mac,
        ) {
            return SealRead::Forged(format!(
                "{}: the seal does not verify with this machine's key",
                self.relative(path)
            ));
        }
        SealRead::Found(Seal { id, label, sha256 })
    }

    /// Writes the seal of a goal steward just wrote, at `place`.
    pub fn write_seal(&self, place: Place, seal: &Seal) -> Result<()> {
        let text = self.seal_text(place, seal)?;
        atomic::exchange_unsynced(
            &self.seal_path(place, &seal.label, &seal.id),
            text.as_bytes(),
        )
    }

    /// Replaces the seal of `label` in `from` with `seal` in `place` (a goal
    /// closed, opened again, or renamed), the new one written before the
    /// old one goes.
    pub fn move_seal(&self, from: Place, label: &str, place: Place, seal: &Seal) -> Result<()> {
        let text = self.seal_text(place, seal)?;
        atomic::move_unsynced(
            &self.seal_path(from, label, &seal.id),
            &self.seal_path(place, &seal.label, &seal.id),
            text.as_bytes(),
        )
    }

    /// A seal's text, its MAC binding it to `place`, in a directory ready
    /// for it.
    fn seal_text(&self, place: Place, seal: &Seal) -> Result<String> {
        let key = self.keys.key()?;
        let mac = key.mac(
            Domain::Seal,
            &[
                place.dir_name().as_bytes(),
                seal.id.as_bytes(),
                seal.label.as_bytes(),
                seal.sha256.as_bytes(),
            ],
        );
        let text = format!(
            "steward seal 2\nid {}\nlabel {}\nsha256 {}\nmac {mac}\n",
            seal.id, seal.label, seal.sha256
        );
        // Machine state: git ignores the directory (it says so itself, so
        // a store made by an older steward needs nothing new).
        if !super::cache_dir_ready(&self.seals_dir()) {
            return Err(Error::UnsafePath {
                path: self.seals_dir(),
                why: "cannot be used for seals (a symbolic link, or not a directory)",
            });
        }
        Ok(text)
    }

    /// Removes a seal, if there is one.
    pub fn remove_seal(&self, place: Place, label: &str, id: &str) -> Result<()> {
        let path = self.seal_path(place, label, id);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(Error::io(&path, "cannot remove the seal", err)),
        }
    }

    /// The verified seal of an open goal's label, or of a label whose goal
    /// vanished: `Err` says why a seal file there does not count.
    pub fn seal_of_label(
        &self,
        place: Place,
        label: &str,
    ) -> Result<std::result::Result<Option<Seal>, String>> {
        let key = self.keys.key()?;
        Ok(
            match self.read_seal(key, place, &self.seal_path(place, label, "")) {
                SealRead::Found(seal) => Ok(Some(seal)),
                SealRead::Missing => Ok(None),
                SealRead::Forged(why) => Err(why),
            },
        )
    }

    /// `loaded` against its seal.
    pub fn seal_check(&self, loaded: &LoadedGoal) -> SealCheck {
        if !self.sealed_here() {
            return SealCheck::Unknown;
        }
        let Ok(key) = self.keys.key() else {
            return SealCheck::Unknown;
        };
        let goal = &loaded.goal;
        let place = self.place_of(&loaded.file.path);
        // Hashed once, and only where a seal or the cache is there to
        // compare with (a new machine's pass finds none).
        let sha = std::cell::OnceCell::new();
        let sha = || sha.get_or_init(|| key::sha256(loaded.file.text().as_bytes()));
        let stamp = stamp_of(loaded);
        let matched = |sha: &String| {
            if let (Place::Open, Some(stamp)) = (place, stamp) {
                (self.keys.matched.lock().expect("not poisoned").0)
                    .insert(goal.label.clone(), (goal.id.clone(), stamp, sha.clone()));
            }
            SealCheck::Matches
        };
        if place == Place::Open
            && let Some(cached) = self
                .keys
                .sealed_files
                .lock()
                .expect("not poisoned")
                .as_ref()
            && let Some((id, cached_stamp, cached_sha)) = cached.0.get(&goal.label)
            && *id == goal.id
            && Some(*cached_stamp) == stamp
            && cached_sha == sha()
        {
            return matched(sha());
        }
        let path = self.seal_path(place, &goal.label, &goal.id);
        match self.read_seal(key, place, &path) {
            SealRead::Missing => SealCheck::Missing,
            SealRead::Forged(why) => SealCheck::Forged(why),
            SealRead::Found(seal) if seal.id != goal.id => SealCheck::OtherGoal(seal),
            SealRead::Found(seal) if seal.sha256 == *sha() => matched(sha()),
            SealRead::Found(seal) => SealCheck::Differs(seal),
        }
    }

    /// The labels that have an open goal's seal.
    pub fn sealed_open_labels(&self) -> Vec<String> {
        let dir = self.seals_dir().join(Place::Open.dir_name());
        let mut labels: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| !name.starts_with('.'))
            .collect();
        labels.sort();
        labels
    }

    /// Whether `state/seals/open/` holds a seal this machine's key made:
    /// the store was sealed here before, whatever its marker says.
    pub fn holds_own_seals(&self) -> bool {
        let Ok(key) = self.keys.key() else {
            return false;
        };
        self.sealed_open_labels().iter().any(|label| {
            let path = self.seal_path(Place::Open, label, "");
            matches!(self.read_seal(key, Place::Open, &path), SealRead::Found(_))
        })
    }

    /// What says this store was sealed on this machine before, by a key
    /// other than the one it has now (the key was removed, or replaced):
    /// seals that do not verify, a marker that does not, or this
    /// machine's published key. `None` when nothing does: a first start.
    pub fn sealed_by_another_key(&self) -> Option<String> {
        let key = self.keys.key().ok()?;
        if !self.sealed_open_labels().is_empty() {
            return Some(format!(
                "{} holds seals",
                self.relative(&self.seals_dir().join(Place::Open.dir_name()))
            ));
        }
        if let Some(marker) = self.sealed_marker().filter(|marker| marker.exists()) {
            return Some(format!("{} is there", marker.display()));
        }
        let machine = self.keys.machine();
        let published = self.published_machines().remove(machine)?;
        (published != key.public()).then(|| {
            format!(
                "{} is another key",
                self.relative(&self.published_key_path(machine))
            )
        })
    }

    /// Whether steward keeps seals for this store on this machine: from
    /// its first write here on. Kept outside the store, with the key, so
    /// that removing `state/seals/` does not make every goal new again.
    pub fn sealed_here(&self) -> bool {
        self.keys.seals(&self.absolute_root)
    }

    fn sealed_marker(&self) -> Option<PathBuf> {
        self.keys.marker(&self.absolute_root)
    }

    /// Records `said` (as [`Said::text`](crate::config::Said::text) gives
    /// it) as what a person on this machine accepted of the configuration
    /// files, bound to this store.
    pub fn accept_config(&self, said: &str) -> Result<()> {
        let key = self.keys.key()?;
        let Some(path) = self.keys.accepted_config_path(&self.absolute_root) else {
            return Err(Error::Key(
                "no home directory to keep steward's machine key in".to_string(),
            ));
        };
        key::create_private_dir(atomic::parent(&path)).map_err(Error::Key)?;
        let mac = key.mac(
            Domain::AcceptedConfig,
            &[root_bytes(&self.absolute_root), said.as_bytes()],
        );
        atomic::write_unsynced(&path, format!("{said}mac {mac}\n").as_bytes())
    }

    /// Adds `digests` (of [`command_digest`]) to the command checks a
    /// person on this machine accepted for this store.
    pub fn accept_commands(&self, digests: &[String]) -> Result<()> {
        let mut accepted = self.keys.accepted_commands(&self.absolute_root);
        let before = accepted.len();
        accepted.extend(digests.iter().cloned());
        if accepted.len() == before {
            return Ok(());
        }
        let key = self.keys.key()?;
        let Some(marker) = self.keys.marker(&self.absolute_root) else {
            return Err(Error::Key(
                "no home directory to keep steward's machine key in".to_string(),
            ));
        };
        let path = marker.with_extension("commands");
        key::create_private_dir(atomic::parent(&path)).map_err(Error::Key)?;
        let body: String = accepted.iter().map(|d| format!("{d}\n")).collect();
        let mac = key.mac(
            Domain::AcceptedCommands,
            &[root_bytes(&self.absolute_root), body.as_bytes()],
        );
        atomic::write_unsynced(&path, format!("{body}mac {mac}\n").as_bytes())
    }

    /// The command checks a person on this machine accepted, as
    /// [`command_digest`]s.
    pub fn accepted_commands(&self) -> BTreeSet<String> {
        self.keys.accepted_commands(&self.absolute_root)
    }

    /// Records that this store is sealed here from now on.
    pub fn mark_sealed_here(&self, now: &str) -> Result<()> {
        let Some(path) = self.sealed_marker() else {
            return Err(Error::Key(
                "no home directory to keep steward's machine key in".to_string(),
            ));
        };
        key::create_private_dir(atomic::parent(&path)).map_err(Error::Key)?;
        let key = self.keys.key()?;
        // The key line is for stewards before the MAC line, which read
        // only it.
        let text = format!(
            "{}\nsealed since {now}\nkey {}\n{}",
            self.absolute_root.to_string_lossy(),
            key.public_hex(),
            marker_mac_line(key, &self.absolute_root)
        );
        // Replaced whole, never written through what is there (a FIFO
        // would hang the write).
        atomic::write_unsynced(&path, text.as_bytes())?;
        self.keys.remember_sealed(&self.absolute_root);
        Ok(())
    }

    /// Whether the store is sealed here ([`Store::sealed_here`]); a marker
    /// written before markers had a MAC gets it, keeping the rest, so that
    /// every later command checks it without a curve multiplication (a
    /// failure to write it costs only that).
    pub fn sealed_here_with_mac(&self) -> bool {
        let mut text = match self.keys.marker_of(&self.absolute_root) {
            Marker::Absent => return false,
            Marker::Sealed => return true,
            Marker::SealedWithoutMac(text) => text,
        };
        let (Some(path), Ok(key)) = (self.sealed_marker(), self.keys.key()) else {
            return true;
        };
        if !text.ends_with('\n') {
            text.push('\n');
        }
        // The seals of that time are written anew, bound to this store,
        // before the marker says it is of this time.
        self.rewrite_legacy_seals();
        text.push_str(&marker_mac_line(key, &self.absolute_root));
        let _ = atomic::write_unsynced(&path, text.as_bytes());
        (self.keys.legacy_marker).store(false, std::sync::atomic::Ordering::Relaxed);
        self.keys.remember_sealed(&self.absolute_root);
        true
    }

    /// Writes every seal an older steward wrote ("seal 1", which verifies
    /// with the key as kept) anew as "seal 2", bound to this store.
    fn rewrite_legacy_seals(&self) {
        let Ok(key) = self.keys.key() else {
            return;
        };
        for place in [Place::Open, Place::Closed, Place::Vanished] {
            let dir = self.seals_dir().join(place.dir_name());
            let names = std::fs::read_dir(&dir).into_iter().flatten().flatten();
            for name in names.filter_map(|e| e.file_name().into_string().ok()) {
                if name.starts_with('.') {
                    continue;
                }
                let path = dir.join(&name);
                let old = safe::read_text(&path, SEAL_BYTES).ok().flatten();
                if !old.is_some_and(|text| text.starts_with("steward seal 1\n")) {
                    continue;
                }
                if let SealRead::Found(seal) = self.read_seal(key, place, &path) {
                    let _ = self.write_seal(place, &seal);
                }
            }
        }
    }
}

/// Whose bytes a goal file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// What steward wrote here (or nothing to compare with yet).
    Steward,
    /// What steward wrote, by events signed by this machine or another one
    /// it trusts, though not sealed here: a seal lost in a crash between
    /// the events and the seals, or a change a `git pull` brought.
    Signed,
    /// Not what steward wrote.
    Outside(OutsideChange),
}

/// A change made to a goal file outside steward.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutsideChange {
    /// The fields that differ from what steward last wrote, when known.
    pub fields: Vec<&'static str>,
    /// What happened, for the history line and the event.
    pub detail: String,
    /// The lines that differ from what steward last wrote, when it is
    /// known (a unified diff, at most [`DIFF_LINES`] lines).
    pub diff: Option<String>,
}

/// The most lines of a change made outside steward an event keeps.
pub const DIFF_LINES: usize = 80;

impl OutsideChange {
    /// The fields, or "the file" when they are not known.
    pub fn what(&self) -> String {
        if self.fields.is_empty() {
            "the file".to_string()
        } else {
            self.fields.join(", ")
        }
    }
}

impl Store {
    /// Whether `loaded` holds the bytes steward last wrote to it here.
    pub fn trust_of(&self, loaded: &LoadedGoal) -> Trust {
        match self.seal_check(loaded) {
            SealCheck::Matches => Trust::Steward,
            // Nothing to compare with yet: a goal in a closed state
            // without the receipt or reason steward leaves was closed by
            // hand all the same.
            SealCheck::Unknown if loaded.goal.closed_by_hand() => Trust::Outside(OutsideChange {
                fields: vec!["status"],
                detail: format!("status set to {} outside steward", loaded.goal.status),
                diff: None,
            }),
            SealCheck::Unknown => Trust::Steward,
            SealCheck::Differs(seal) if self.signed(loaded, Some(&seal.sha256)) => Trust::Signed,
            // What a steward command put in place and was stopped before
            // recording: the next write completes it.
            SealCheck::Differs(_) if self.intended(loaded) => Trust::Steward,
            // A seal gone, or one that does not verify or names another
            // goal (a crash can leave a seal's name on another seal's
            // bytes: seals are replaced through a spare, unsynced): the
            // signed events decide, from the goal's beginning.
            SealCheck::Missing | SealCheck::Forged(_) | SealCheck::OtherGoal(_)
                if self.signed(loaded, None) =>
            {
                Trust::Signed
            }
            SealCheck::Differs(seal) => Trust::Outside(self.what_changed(loaded, &seal)),
            SealCheck::OtherGoal(seal) => Trust::Outside(OutsideChange {
                fields: vec!["id"],
                detail: format!(
                    "id changed outside steward (steward wrote this file as goal {})",
                    seal.id
                ),
                diff: None,
            }),
            SealCheck::Missing => Trust::Outside(OutsideChange {
                fields: Vec::new(),
                detail: "the file was put here outside steward (steward never wrote it)"
                    .to_string(),
                diff: None,
            }),
            SealCheck::Forged(why) => Trust::Outside(OutsideChange {
                fields: Vec::new(),
                detail: format!("its seal was changed outside steward ({why})"),
                diff: None,
            }),
        }
    }

    /// `loaded`'s goal as the judge takes it now, when that differs from
    /// the file: an open goal changed outside steward and not yet
    /// recorded waits for a person's review. For the screens that offer
    /// work (`prompt`, the hooks, MCP, `why`), which write nothing: the
    /// next write records the change ([`Transaction::verify`]).
    ///
    /// [`Transaction::verify`]: super::Transaction::verify
    pub fn as_judged(
        &self,
        loaded: &LoadedGoal,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Option<crate::model::Goal> {
        let goal = &loaded.goal;
        if goal.status.is_terminal() || goal.status == crate::model::Status::Paused {
            return None;
        }
        let Trust::Outside(outside) = self.trust_of(loaded) else {
            return None;
        };
        let mut held = (**goal).clone();
        held.waiting = Some(review_wait(&outside, now));
        Some(held)
    }

    /// Whether `loaded`, found among the closed goals, is the open goal
    /// sealed as `open` closed by steward (here, or on a machine this one
    /// trusts): closed, and led to by signed changes from the bytes sealed
    /// open. An open goal moved there, or one closed by hand, is not.
    pub fn closed_by_steward(&self, loaded: &LoadedGoal, open: &Seal) -> bool {
        loaded.goal.id == open.id
            && loaded.goal.status.is_terminal()
            && self.signed(loaded, Some(&open.sha256))
    }

    /// Whether an interrupted transaction's journal says steward was about
    /// to put these very bytes in this goal's file.
    fn intended(&self, loaded: &LoadedGoal) -> bool {
        let Ok(key) = self.keys.key() else {
            return false;
        };
        let Some(left) = super::journal::read(&self.state_dir, key) else {
            return false;
        };
        let sha = sha256(loaded.file.text().as_bytes());
        let path = self.relative(&loaded.file.path);
        let intents: Vec<&super::journal::Intent> = (left.intents.iter())
            .filter(|i| i.id == loaded.goal.id)
            .collect();
        intents
            .first()
            .is_some_and(|first| self.starts_from_seal(first))
            && intents.iter().any(|i| i.path == path && i.after == sha)
    }

    /// Whether an interrupted transaction's first intent for a goal starts
    /// from what is sealed now: the bytes it replaced are the sealed ones
    /// (or, for a new goal, nothing is sealed where it goes).
    pub(super) fn starts_from_seal(&self, first: &super::journal::Intent) -> bool {
        let Ok(key) = self.keys.key() else {
            return false;
        };
        match (&first.sealed_as, &first.before) {
            (Some((place, label)), Some(before)) => {
                let path = self.seal_path(*place, label, &first.id);
                matches!(
                    self.read_seal(key, *place, &path),
                    SealRead::Found(seal) if seal.id == first.id && seal.sha256 == *before
                )
            }
            (None, None) => {
                let path = self.seal_path(Place::Open, &first.label, &first.id);
                matches!(self.read_seal(key, Place::Open, &path), SealRead::Missing)
            }
            _ => false,
        }
    }

    /// Whether the event log holds changes signed by trusted machines
    /// (this one included) that take the goal from the bytes hashed `from`
    /// (its seal here; `None`: none) to what the file holds, the last of
    /// them leaving those bytes: a version later changes replaced, put back
    /// without its seal, is not steward's.
    fn signed(&self, loaded: &LoadedGoal, from: Option<&str>) -> bool {
        if loaded.goal.id.is_empty() {
            return false;
        }
        let sha = sha256(loaded.file.text().as_bytes());
        let keys = self.trusted_keys();
        let prepared = self.keys.chains.lock().expect("not poisoned");
        match prepared.as_ref() {
            Some(chains) if chains.covers(&loaded.goal.id) => {
                chains.reaches_last(&loaded.goal.id, from, &sha, &keys)
            }
            _ => {
                drop(prepared);
                let id = &loaded.goal.id;
                self.log().chains_of(id).reaches_last(id, from, &sha, &keys)
            }
        }
    }

    /// From now on, takes a goal file whose `stat` and SHA-256 are what the
    /// last pass recorded as sealed (`state/cache/sealed`) without reading
    /// its seal: for `tick`, which checks every open goal.
    pub fn use_seal_cache(&self) {
        let Ok(key) = self.keys.key() else {
            return;
        };
        let text = safe::read_state(&sealed_files_path(&self.state_dir)).unwrap_or_default();
        let Some(lines) = key.lines_under_mac(Domain::Cache, &text, SEALED_FILES_HEADER) else {
            return;
        };
        let entries = lines
            .filter_map(|line| {
                let mut words = line.split(' ');
                let label = words.next()?.to_string();
                let id = words.next()?.to_string();
                let mut number = || words.next()?.parse::<u128>().ok();
                let stamp = (
                    u64::try_from(number()?).ok()?,
                    number()?,
                    u64::try_from(number()?).ok()?,
                    i64::try_from(number()?).ok()?,
                    i64::try_from(number()?).ok()?,
                );
                let sha = words.next()?.to_string();
                Some((label, (id, stamp, sha)))
            })
            .collect();
        *self.keys.sealed_files.lock().expect("not poisoned") = Some(SealedFiles(entries));
    }

    /// Records the open goals of `goals` found as steward wrote them and
    /// not written since they were read, for the next pass; writes nothing
    /// when that is what the cache says already. A goal this command
    /// already found sealed is not hashed again.
    pub fn save_seal_cache(&self, goals: &[LoadedGoal]) -> Result<()> {
        let key = self.keys.key()?;
        // At 100,000 goals this runs at the pass's peak: one buffer, in the
        // goals' order (a scan's is file-name order, the same every pass).
        let mut body = String::with_capacity(SEALED_FILES_HEADER.len() + 160 * goals.len());
        body.push_str(SEALED_FILES_HEADER);
        body.push('\n');
        for g in goals
            .iter()
            .filter(|g| !g.goal.id.is_empty() && self.place_of(&g.file.path) == Place::Open)
        {
            let Some(stamp) = stamp_of(g) else {
                continue;
            };
            let written = |matched: &SealedFiles, body: &mut String| {
                let (_, _, sha) = (matched.0.get(&g.goal.label))
                    .filter(|(id, at, _)| *id == g.goal.id && *at == stamp)?;
                let (size, modified, inode, changed, changed_ns) = stamp;
                let _ = writeln!(
                    body,
                    "{} {} {size} {modified} {inode} {changed} {changed_ns} {sha}",
                    g.goal.label, g.goal.id
                );
                Some(())
            };
            let matched = || self.keys.matched.lock().expect("not poisoned");
            let known = written(&matched(), &mut body).is_some();
            // Checking the seal records a match in `matched`.
            if !known && self.seal_check(g) == SealCheck::Matches {
                written(&matched(), &mut body);
            }
        }
        let text = key.with_mac(Domain::Cache, body);
        let path = sealed_files_path(&self.state_dir);
        if safe::read_state(&path).as_deref() == Some(text.as_str()) {
            return Ok(());
        }
        if !super::cache_dir_ready(atomic::parent(&path)) {
            return Ok(());
        }
        atomic::write_unsynced(&path, text.as_bytes())
    }

    /// Reads the log once for the changes of every goal of `goals` whose
    /// file is not what its seal says, so that checking each of them does
    /// not read it again (a `tick` after a pull that changed many goals,
    /// or after the seals were removed).
    pub fn prepare_chains<'g>(&self, goals: impl IntoIterator<Item = &'g LoadedGoal>) {
        let covered = |id: &str| {
            (self.keys.chains.lock().expect("not poisoned"))
                .as_ref()
                .is_some_and(|chains| chains.covers(id))
        };
        let doubtful: std::collections::HashSet<&str> = goals
            .into_iter()
            .filter(|g| {
                matches!(
                    self.seal_check(g),
                    SealCheck::Differs(_) | SealCheck::Missing | SealCheck::Forged(_)
                )
            })
            .map(|g| g.goal.id.as_str())
            .filter(|id| !id.is_empty() && !covered(id))
            .collect();
        if doubtful.len() > 1 {
            let chains = self.log().chains(&doubtful);
            let mut prepared = self.keys.chains.lock().expect("not poisoned");
            match prepared.as_mut() {
                Some(known) => known.extend(chains),
                None => *prepared = Some(chains),
            }
        }
    }

    /// Lets go of the changes [`Store::prepare_chains`] read: what a batch
    /// of goals needed, read before the lock was let go, is neither needed
    /// nor current for the next.
    pub fn forget_chains(&self) {
        *self.keys.chains.lock().expect("not poisoned") = None;
    }

    /// The machines whose signed events this machine takes as steward's:
    /// itself, and the ones it trusts (`state/seals/machines`, bound to
    /// this machine's key).
    pub fn trusted_machines(&self) -> &BTreeMap<String, PublicKey> {
        self.keys.trusted.get_or_init(|| {
            let mut trusted = self.read_trusted().unwrap_or_default();
            if let Ok(key) = self.keys.key() {
                trusted.insert(self.keys.machine.clone(), key.public());
            }
            trusted
        })
    }

    /// The keys of the machines this one trusts.
    pub fn trusted_keys(&self) -> Vec<PublicKey> {
        let mut keys: Vec<PublicKey> = self.trusted_machines().values().cloned().collect();
        keys.dedup();
        keys
    }

    fn trusted_path(&self) -> PathBuf {
        self.seals_dir().join("machines")
    }

    fn read_trusted(&self) -> Option<BTreeMap<String, PublicKey>> {
        let text = safe::read_text(&self.trusted_path(), 1024 * 1024).ok()??;
        let (body, mac) = text.rsplit_once("mac ")?;
        // Bound to this store, or written before MACs were.
        let verified = [self.keys.key(), self.keys.unbound_key()]
            .into_iter()
            .flatten()
            .any(|key| key.verifies(Domain::Config, &[body.as_bytes()], mac.trim()));
        if !verified {
            return None;
        }
        let mut lines = body.lines();
        (lines.next()? == "steward machines 1").then_some(())?;
        lines
            .map(|line| {
                let (machine, public) = line.split_once(' ')?;
                Some((machine.to_string(), PublicKey::parse(public)?))
            })
            .collect()
    }

    /// Trusts `machines` (name and published key) from now on, on this
    /// machine.
    pub fn trust_machines(&self, machines: &BTreeMap<String, PublicKey>) -> Result<()> {
        let key = self.keys.key()?;
        let mut all = self.read_trusted().unwrap_or_default();
        all.extend(machines.iter().map(|(m, k)| (m.clone(), k.clone())));
        let mut body = String::from("steward machines 1\n");
        for (machine, public) in &all {
            body.push_str(&format!("{machine} {}\n", public.hex()));
        }
        let mac = key.mac(Domain::Config, &[body.as_bytes()]);
        if !super::cache_dir_ready(&self.seals_dir()) {
            return Err(Error::UnsafePath {
                path: self.seals_dir(),
                why: "cannot be used for seals (a symbolic link, or not a directory)",
            });
        }
        atomic::write_unsynced(
            &self.trusted_path(),
            format!("{body}mac {mac}\n").as_bytes(),
        )
    }

    /// Where machines publish their keys: `state/machines/<machine>.pub`,
    /// committed with the store.
    pub fn published_key_path(&self, machine: &str) -> PathBuf {
        self.state_dir
            .join("machines")
            .join(format!("{machine}.pub"))
    }

    /// The keys the machines of the store published.
    pub fn published_machines(&self) -> BTreeMap<String, PublicKey> {
        let dir = self.state_dir.join("machines");
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let machine = name.strip_suffix(".pub")?.to_string();
                let text = safe::read_text(&entry.path(), 4096).ok()??;
                let public = PublicKey::parse(text.strip_prefix("ed25519 ")?)?;
                Some((machine, public))
            })
            .collect()
    }

    /// The bytes steward last wrote to `loaded`'s file, when they differ
    /// from the file's and this machine keeps them: its undo record, when
    /// that is the write the seal is of.
    pub fn as_steward_wrote(&self, loaded: &LoadedGoal) -> Option<String> {
        match self.seal_check(loaded) {
            SealCheck::Differs(seal) => self.written_as_sealed(loaded, &seal),
            _ => None,
        }
    }

    fn written_as_sealed(&self, loaded: &LoadedGoal, seal: &Seal) -> Option<String> {
        self.undo_record(&loaded.goal.id)
            .and_then(|record| record.after)
            .filter(|text| sha256(text.as_bytes()) == seal.sha256)
    }

    /// Which fields differ from what steward last wrote: from its undo
    /// record, when that is the write the seal is of.
    fn what_changed(&self, loaded: &LoadedGoal, seal: &Seal) -> OutsideChange {
        let written = self.written_as_sealed(loaded, seal);
        let diff = written.as_deref().map(|was| {
            let diff =
                crate::text::diff_between(was, loaded.file.text(), ("as steward wrote it", "now"));
            let mut lines: Vec<&str> = diff.lines().take(DIFF_LINES + 1).collect();
            if lines.len() > DIFF_LINES {
                lines.truncate(DIFF_LINES);
                lines.push("… (more lines differ)");
            }
            lines.join("\n") + "\n"
        });
        let before = written
            .and_then(|text| GoalFile::parse(&loaded.file.path, text).ok())
            .and_then(|file| file.goal(&self.defaults).ok());
        let fields = before.map_or_else(Vec::new, |before| {
            crate::model::changed_fields(&before, &loaded.goal)
        });
        let detail = if fields.is_empty() {
            "changed outside steward".to_string()
        } else {
            format!("{} changed outside steward", fields.join(", "))
        };
        OutsideChange {
            fields,
            detail,
            diff,
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum SealRead {
    Found(Seal),
    Missing,
    Forged(String),
}

/// A machine's name as it signs: letters, digits, `.`, `-` and `_` (a host
/// name, or `machine_id`), anything else made a `-`.
fn machine_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || ".-_".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "localhost".to_string()
    } else {
        cleaned
    }
}

/// The wait of a goal changed outside steward: for a person's review.
pub fn review_wait(
    outside: &OutsideChange,
    now: chrono::DateTime<chrono::Utc>,
) -> crate::model::Waiting {
    crate::model::Waiting::for_person(
        crate::model::PersonWait::Review,
        format!(
            "a person to review what changed outside steward ({})",
            outside.what()
        ),
        now,
    )
}

/// How an accepted command check is kept: the SHA-256 of the goal's id
/// and the command, so that the record names neither.
pub fn command_digest(goal_id: &str, command: &str) -> String {
    sha256(format!("{goal_id}\0{command}").as_bytes())
}

/// The commands among `goal`'s checks.
pub fn command_checks(goal: &crate::model::Goal) -> impl Iterator<Item = &str> {
    (goal.verification.iter())
        .filter(|check| check.kind == crate::model::CheckKind::CommandExitZero)
        .map(|check| check.target.as_str())
}

/// What a person on this machine accepted of a sealed store's
/// configuration files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AcceptedConfig {
    /// As [`Said::text`](crate::config::Said::text) gives it.
    Verified(String),
    /// Missing, or not by this key for this store (the key was replaced, a
    /// steward before this record kept none): nothing verifies.
    Lost,
}

#[cfg(test)]
mod tests {
    use crate::store::testing::{NOW, TempStore};

    /// Seals written before MACs were bound to their store still verify
    /// (and are written anew bound); a seal of one store is no seal in
    /// another.
    #[test]
    fn seals_are_bound_to_their_store_and_older_ones_still_read() {
        use super::{Domain, Place, Seal, SealRead};
        let temp = TempStore::new();
        let store = temp.store();
        let seal = Seal {
            id: "0f8e2c1a".to_string(),
            label: "g".to_string(),
            sha256: "ab".repeat(32),
        };
        store.write_seal(Place::Open, &seal).unwrap();
        let path = store.seal_path(Place::Open, "g", "");
        let key = store.keys.key().unwrap();
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .starts_with("steward seal 2\n")
        );
        assert_eq!(
            store.read_seal(key, Place::Open, &path),
            SealRead::Found(seal.clone())
        );
        // The same key, another store: not a seal there.
        let elsewhere = TempStore::new();
        let other = super::Keyring::at(crate::store::key::key_dir(&temp.root().join("home")), "")
            .for_store(elsewhere.root());
        let other_key = other.key().unwrap();
        assert!(matches!(
            store.read_seal(other_key, Place::Open, &path),
            SealRead::Forged(_)
        ));
        // One an older steward wrote, its MAC bound to no store.
        let legacy = store.keys.unbound_key().unwrap();
        let mac = legacy.mac(
            Domain::Seal,
            &[
                b"open",
                seal.id.as_bytes(),
                seal.label.as_bytes(),
                seal.sha256.as_bytes(),
            ],
        );
        std::fs::write(
            &path,
            format!(
                "steward seal 1\nid {}\nlabel {}\nsha256 {}\nmac {mac}\n",
                seal.id, seal.label, seal.sha256
            ),
        )
        .unwrap();
        // Read only while the store's marker is of that time too.
        assert!(matches!(
            store.read_seal(key, Place::Open, &path),
            SealRead::Forged(_)
        ));
        (store.keys.legacy_marker).store(true, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(
            store.read_seal(key, Place::Open, &path),
            SealRead::Found(seal.clone())
        );
        store.rewrite_legacy_seals();
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .starts_with("steward seal 2\n")
        );
        (store.keys.legacy_marker).store(false, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(
            store.read_seal(key, Place::Open, &path),
            SealRead::Found(seal)
        );
    }

    #[test]
    fn a_marker_found_sealed_is_read_once_a_command_and_one_not_found_again() {
        let temp = TempStore::new();
        let command = temp.store();
        assert!(!command.sealed_here());
        // Sealed by another command meanwhile: not remembered as unsealed.
        temp.store().mark_sealed_here(NOW).unwrap();
        assert!(command.sealed_here());
        let marker = command.sealed_marker().unwrap();
        std::fs::remove_file(&marker).unwrap();
        assert!(command.sealed_here(), "read once, for the whole command");
        assert!(!temp.store().sealed_here(), "the next command reads it");
        // One that writes the marker knows it without reading it.
        let sealing = temp.store();
        sealing.mark_sealed_here(NOW).unwrap();
        std::fs::remove_file(&marker).unwrap();
        assert!(sealing.sealed_here());
    }
}
