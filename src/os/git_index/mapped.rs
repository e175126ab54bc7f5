//! A file mapped read-only into memory: an index of 100,000 entries is
//! walked and hashed where the kernel keeps it, never copied. Git writes an
//! index by renaming a new file over it, never in place, so the mapped
//! file does not change under the mapping.

use std::os::fd::AsRawFd;
use std::path::Path;

pub struct Mapped {
    address: *mut libc::c_void,
    length: usize,
}

impl Mapped {
    pub fn open(path: &Path) -> std::io::Result<Mapped> {
        // Never a FIFO an agent put there (the open would hang), nor
        // through a link.
        let file = crate::os::safe_file::open_regular(path)?
            .ok_or_else(|| std::io::Error::other("not a regular file"))?;
        let length = usize::try_from(file.metadata()?.len())
            .map_err(|_| std::io::Error::other("too large to map"))?;
        if length == 0 {
            return Ok(Mapped {
                address: std::ptr::null_mut(),
                length,
            });
        }
        // SAFETY: a private read-only mapping of a file open for reading,
        // of its whole length; unmapped once, on drop.
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                length,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Mapped { address, length })
    }
}

impl std::ops::Deref for Mapped {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        if self.length == 0 {
            return &[];
        }
        // SAFETY: `address` maps `length` readable bytes for as long as
        // `self` lives.
        unsafe { std::slice::from_raw_parts(self.address.cast::<u8>(), self.length) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        if self.length > 0 {
            // SAFETY: the mapping made in `open`, unmapped only here.
            unsafe {
                libc::munmap(self.address, self.length);
            }
        }
    }
}
