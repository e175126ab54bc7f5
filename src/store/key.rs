//! This machine's key: the secret that binds steward's own records (seals,
//! events, undo records, runs, claims) to this machine, so that one edited
//! or forged by anyone without it is found and refused.
//!
//! It lives outside every store, in the home directory the password
//! database gives the user (not `$HOME`, which an agent can point
//! elsewhere), readable by that user alone. An agent running as the same
//! user can still read it if it goes looking: the key stops edits of the
//! store's files from passing as steward's, and records arriving from
//! another machine from passing as this one's; keeping an agent away from
//! it takes the operating system (a sandbox that denies the directory, or
//! another user).

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// The key file's name inside the key directory.
const KEY_FILE: &str = "machine-key";

/// From 32 random bytes kept in the key file: a key for MACs of records
/// only this machine reads (seals, undo records), and an Ed25519 key for
/// records other machines of the store verify (events, runs, claims) with
/// the public half it publishes in the store.
#[derive(Clone)]
pub struct MachineKey {
    mac_key: [u8; 32],
    /// The Ed25519 key's seed, and the key made from it on first use:
    /// making it multiplies a curve point (and probes the CPU), which the
    /// commands that only read and MAC never need.
    signing_seed: [u8; 32],
    signing: std::sync::OnceLock<ed25519_dalek::SigningKey>,
}

impl std::fmt::Debug for MachineKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MachineKey(…)")
    }
}

/// What a record is, so that a MAC made for one kind never verifies as
/// another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    Seal,
    Event,
    Undo,
    Run,
    Claim,
    Cache,
    Config,
    /// What a person accepted of the configuration, bound to the store's
    /// root.
    AcceptedConfig,
    /// The command checks a person accepted, bound to the store's root.
    AcceptedCommands,
    /// What a transaction is about to write (`store::journal`).
    Journal,
    /// What this machine appended to the event log, bound to the store's
    /// root.
    LogMark,
    Store,
    /// What this machine told a person, and how far into the log
    /// (`store::told`).
    Told,
    /// A capability a reply carries (`engine::reply`).
    Reply,
    /// What a machine says it can run (`engine::fleet`).
    Machine,
}

impl Domain {
    fn tag(self) -> &'static [u8] {
        match self {
            Domain::Seal => b"steward seal 1",
            Domain::Event => b"steward event 1",
            Domain::Undo => b"steward undo 1",
            Domain::Run => b"steward run 1",
            Domain::Claim => b"steward claim 1",
            Domain::Cache => b"steward cache 1",
            Domain::Config => b"steward config 1",
            Domain::AcceptedConfig => b"steward accepted configuration 1",
            Domain::AcceptedCommands => b"steward accepted commands 1",
            Domain::Journal => b"steward journal 1",
            Domain::LogMark => b"steward log mark 1",
            Domain::Store => b"steward store 1",
            Domain::Told => b"steward told 1",
            Domain::Reply => b"steward reply 1",
            Domain::Machine => b"steward machine 1",
        }
    }
}

impl MachineKey {
    /// A key made from `seed`, for unit tests.
    #[cfg(test)]
    pub fn for_tests(seed: u8) -> MachineKey {
        MachineKey::from_secret(&[seed; 32])
    }

    fn from_secret(secret: &[u8; 32]) -> MachineKey {
        let derive = |purpose: &[u8]| -> [u8; 32] {
            let mut hmac = <Hmac<Sha256> as Mac>::new_from_slice(secret).expect("any key");
            hmac.update(purpose);
            hmac.finalize().into_bytes().into()
        };
        MachineKey {
            mac_key: derive(b"steward: MAC key"),
            signing_seed: derive(b"steward: Ed25519 key"),
            signing: std::sync::OnceLock::new(),
        }
    }

    /// This key with its MACs bound to the store at `absolute_root`: a
    /// seal, record or cache made for one store verifies in no other (a
    /// scratch store an agent made, a copy elsewhere). Signatures, which
    /// other machines of the store verify, are the same.
    pub fn bound_to_store(&self, absolute_root: &std::path::Path) -> MachineKey {
        let mut hmac =
            <Hmac<Sha256> as Mac>::new_from_slice(&self.mac_key).expect("HMAC takes any key");
        hmac.update(b"steward: the store at ");
        hmac.update(absolute_root.as_os_str().as_encoded_bytes());
        MachineKey {
            mac_key: hmac.finalize().into_bytes().into(),
            signing_seed: self.signing_seed,
            signing: self.signing.clone(),
        }
    }

    fn signing(&self) -> &ed25519_dalek::SigningKey {
        (self.signing).get_or_init(|| ed25519_dalek::SigningKey::from_bytes(&self.signing_seed))
    }

    /// The public half of the signing key, in hex: what this machine
    /// publishes in the store (`state/machines/<machine>.pub`).
    pub fn public_hex(&self) -> String {
        hex(self.signing().verifying_key().as_bytes())
    }

    /// `body` with this machine's MAC of it, as a record of `domain`, on a
    /// last line: how steward keeps a cache whose entries it trusts.
    pub fn with_mac(&self, domain: Domain, mut body: String) -> String {
        let mac = self.mac(domain, &[body.as_bytes()]);
        body.push_str("mac ");
        body.push_str(&mac);
        body.push('\n');
        body
    }

    /// The lines of `text` after its first, when the first is `header` and
    /// the last is this machine's MAC of the rest ([`MachineKey::with_mac`]).
    pub fn lines_under_mac<'t>(
        &self,
        domain: Domain,
        text: &'t str,
        header: &str,
    ) -> Option<std::str::Lines<'t>> {
        let (body, mac) = text.rsplit_once("mac ")?;
        if !self.verifies(domain, &[body.as_bytes()], mac.trim()) {
            return None;
        }
        let mut lines = body.lines();
        (lines.next()? == header).then_some(lines)
    }

    /// This machine's signature of `parts` as a record of `domain`, in hex.
    pub fn sign(&self, domain: Domain, parts: &[&[u8]]) -> String {
        use ed25519_dalek::Signer;
        hex(&self.signing().sign(&framed(domain, parts)).to_bytes())
    }

    /// The key in `dir`, made there (readable by this user only) on first
    /// use. Two processes making it at once end up with the same key.
    pub fn load_or_create(dir: &Path) -> Result<MachineKey, String> {
        let path = dir.join(KEY_FILE);
        match read_key(&path) {
            Ok(Some(key)) => return Ok(key),
            Ok(None) => {}
            Err(why) => return Err(why),
        }
        create_private_dir(dir)?;
        let mut bytes = [0u8; 32];
        crate::os::platform::fill_random(&mut bytes)
            .map_err(|err| format!("cannot make a key: {err}"))?;
        // Written whole to a file of its own, then linked into place: a
        // reader never sees half a key, and the first of two makers wins.
        let temp = dir.join(format!(".{KEY_FILE}.{}", std::process::id()));
        let _ = std::fs::remove_file(&temp);
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&temp)
            .and_then(|mut file| {
                file.write_all(format!("{}\n", hex(&bytes)).as_bytes())?;
                file.sync_all()
            });
        if let Err(err) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(format!("{}: cannot write the key: {err}", temp.display()));
        }
        let linked = std::fs::hard_link(&temp, &path);
        let _ = std::fs::remove_file(&temp);
        match linked {
            Ok(()) => Ok(MachineKey::from_secret(&bytes)),
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => read_key(&path)?
                .ok_or_else(|| format!("{}: the key vanished while it was made", path.display())),
            Err(err) => Err(format!("{}: cannot keep the key: {err}", path.display())),
        }
    }

    /// A MAC of `parts` as a record of `domain`, in hex. Each part is
    /// framed by its length, so parts cannot run into each other.
    pub fn mac(&self, domain: Domain, parts: &[&[u8]]) -> String {
        hex(&self.code(domain, parts))
    }

    /// Whether `mac` (hex) is this key's MAC of `parts` as `domain`,
    /// compared in constant time.
    pub fn verifies(&self, domain: Domain, parts: &[&[u8]], mac: &str) -> bool {
        let Some(given) = unhex(mac) else {
            return false;
        };
        self.hmac(domain, parts).verify_slice(&given).is_ok()
    }

    fn code(&self, domain: Domain, parts: &[&[u8]]) -> Vec<u8> {
        self.hmac(domain, parts).finalize().into_bytes().to_vec()
    }

    fn hmac(&self, domain: Domain, parts: &[&[u8]]) -> Hmac<Sha256> {
        let mut hmac =
            <Hmac<Sha256> as Mac>::new_from_slice(&self.mac_key).expect("HMAC takes any key");
        hmac.update(&framed(domain, parts));
        hmac
    }
}

/// `parts` as one message of `domain`: each part framed by its length, so
/// parts cannot run into each other.
fn framed(domain: Domain, parts: &[&[u8]]) -> Vec<u8> {
    let mut message = Vec::new();
    for part in std::iter::once(domain.tag()).chain(parts.iter().copied()) {
        message.extend_from_slice(&(part.len() as u64).to_le_bytes());
        message.extend_from_slice(part);
    }
    message
}

/// A machine's published key, to verify what it signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey(ed25519_dalek::VerifyingKey);

impl PublicKey {
    /// From its hex form (64 digits).
    pub fn parse(text: &str) -> Option<PublicKey> {
        let bytes: [u8; 32] = unhex(text.trim())?.try_into().ok()?;
        ed25519_dalek::VerifyingKey::from_bytes(&bytes)
            .ok()
            .map(PublicKey)
    }

    pub fn hex(&self) -> String {
        hex(self.0.as_bytes())
    }

    /// Whether `signature` (hex) is this key's signature of `parts` as
    /// `domain`.
    pub fn verifies(&self, domain: Domain, parts: &[&[u8]], signature: &str) -> bool {
        let Some(bytes) = unhex(signature).and_then(|b| <[u8; 64]>::try_from(b).ok()) else {
            return false;
        };
        let signature = ed25519_dalek::Signature::from_bytes(&bytes);
        self.0
            .verify_strict(&framed(domain, parts), &signature)
            .is_ok()
    }
}

impl MachineKey {
    /// The public half, to verify this machine's own signatures.
    pub fn public(&self) -> PublicKey {
        PublicKey(self.signing().verifying_key())
    }
}

/// The SHA-256 of `bytes`, in hex: what a seal says a file held.
pub fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Reads the key at `path`: `None` when there is none. Refused when it is
/// not a regular file of this user's that only this user can read.
fn read_key(path: &Path) -> Result<Option<MachineKey>, String> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let mut file = match file {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("{}: cannot read the key: {err}", path.display())),
    };
    let meta = file
        .metadata()
        .map_err(|err| format!("{}: {err}", path.display()))?;
    // SAFETY: getuid cannot fail.
    let me = unsafe { libc::getuid() };
    if !meta.is_file() || meta.uid() != me || meta.permissions().mode() & 0o077 != 0 {
        return Err(format!(
            "{}: the key must be a file of yours that only you can read (chmod 600 it, or remove it to make a new one: every goal is then sealed again as it is)",
            path.display()
        ));
    }
    let mut text = String::new();
    (&mut file)
        .take(256)
        .read_to_string(&mut text)
        .map_err(|err| format!("{}: cannot read the key: {err}", path.display()))?;
    let bytes = unhex(text.trim())
        .filter(|b| b.len() == 32)
        .ok_or_else(|| format!("{}: not a key (64 hex digits)", path.display()))?;
    let mut secret = [0u8; 32];
    secret.copy_from_slice(&bytes);
    Ok(Some(MachineKey::from_secret(&secret)))
}

/// Makes `dir` (and its parents) readable by this user only.
pub fn create_private_dir(dir: &Path) -> Result<(), String> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|err| format!("{}: cannot create: {err}", dir.display()))
}

pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(DIGITS[usize::from(byte >> 4)] as char);
        out.push(DIGITS[usize::from(byte & 15)] as char);
    }
    out
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Where this user's key and the list of stores sealed here live:
/// `~/.config/steward`, with `~` from `home`.
pub fn key_dir(home: &Path) -> PathBuf {
    home.join(".config").join("steward")
}

/// This user's home directory as the password database says (not
/// `$HOME`, which whoever starts steward can set).
pub fn home_of_user() -> Option<PathBuf> {
    // SAFETY: getpwuid_r writes into the buffer and the record given; the
    // result points into them and is read before they go.
    unsafe {
        let mut record: libc::passwd = std::mem::zeroed();
        let mut buffer = vec![0 as libc::c_char; 4096];
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let status = libc::getpwuid_r(
            libc::getuid(),
            &mut record,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut result,
        );
        if status != 0 || result.is_null() || record.pw_dir.is_null() {
            return None;
        }
        let dir = std::ffi::CStr::from_ptr(record.pw_dir);
        use std::os::unix::ffi::OsStrExt;
        let dir = PathBuf::from(std::ffi::OsStr::from_bytes(dir.to_bytes()));
        dir.is_absolute().then_some(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_made_once_private_and_its_macs_verify_only_for_their_domain() {
        let home = tempfile::tempdir().unwrap();
        let dir = key_dir(home.path());
        let key = MachineKey::load_or_create(&dir).unwrap();
        let again = MachineKey::load_or_create(&dir).unwrap();
        assert_eq!(key.mac_key, again.mac_key);
        assert_eq!(key.public_hex(), again.public_hex());
        let mode = std::fs::metadata(dir.join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let mac = key.mac(Domain::Seal, &[b"id", b"text"]);
        assert!(key.verifies(Domain::Seal, &[b"id", b"text"], &mac));
        assert!(!key.verifies(Domain::Event, &[b"id", b"text"], &mac));
        assert!(!key.verifies(Domain::Seal, &[b"idt", b"ext"], &mac));
        assert!(!key.verifies(Domain::Seal, &[b"id", b"text"], "00"));
        let other =
            MachineKey::load_or_create(&key_dir(tempfile::tempdir().unwrap().path())).unwrap();
        assert!(!other.verifies(Domain::Seal, &[b"id", b"text"], &mac));

        // Signatures verify with the published half, for their domain only.
        let signature = key.sign(Domain::Event, &[b"line"]);
        let public = PublicKey::parse(&key.public_hex()).unwrap();
        assert!(public.verifies(Domain::Event, &[b"line"], &signature));
        assert!(!public.verifies(Domain::Run, &[b"line"], &signature));
        assert!(!public.verifies(Domain::Event, &[b"lime"], &signature));
        assert!(
            !other
                .public()
                .verifies(Domain::Event, &[b"line"], &signature)
        );
    }

    #[test]
    fn a_key_others_can_read_is_refused() {
        let home = tempfile::tempdir().unwrap();
        let dir = key_dir(home.path());
        MachineKey::load_or_create(&dir).unwrap();
        std::fs::set_permissions(dir.join(KEY_FILE), std::fs::Permissions::from_mode(0o644))
            .unwrap();
        let err = MachineKey::load_or_create(&dir).unwrap_err();
        assert!(err.contains("only you can read"), "{err}");
    }

    #[test]
    fn the_sha256_of_known_text_is_stable() {
        assert_eq!(
            sha256(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
