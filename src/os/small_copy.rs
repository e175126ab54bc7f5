//! The copy behind `memcpy` in the static musl build, for the small copies
//! that are nearly all of them.
//!
//! musl's `memcpy` copies with `rep movsq` and single-byte moves, some 40
//! cycles even for 8 bytes; a `list --json` of 1,000 goals makes about
//! 216,000 calls (counted with a `perf probe`), most of them under 64
//! bytes, and they were a fifth of its samples. The static build's link
//! wraps `memcpy` (`--wrap=memcpy` in `.cargo/config.toml`): every call,
//! from Rust and from the vendored C alike, comes to [`__wrap_memcpy`],
//! which copies up to 64 bytes itself and hands larger copies to musl's.

/// Copies `n` bytes from `src` to `dest` when `n` is at most 64, with two
/// to four unaligned loads, then as many stores, that may overlap one
/// another; `false`, copying nothing, for more. No loop: nothing here the
/// compiler could turn back into a call to `memcpy`.
///
/// # Safety
///
/// As `memcpy`: `src` is readable and `dest` writable for `n` bytes.
#[inline(always)]
pub unsafe fn copy_small(dest: *mut u8, src: *const u8, n: usize) -> bool {
    // SAFETY: every access below is within the first `n` bytes of `src`
    // and `dest`, which the caller vouches for; all loads come before the
    // stores.
    unsafe {
        match n {
            0 => {}
            1 => *dest = *src,
            2..=3 => copy_ends::<u16>(dest, src, n),
            4..=7 => copy_ends::<u32>(dest, src, n),
            8..=16 => copy_ends::<u64>(dest, src, n),
            17..=32 => copy_ends::<u128>(dest, src, n),
            33..=64 => {
                let first = (src as *const u128).read_unaligned();
                let second = (src.add(16) as *const u128).read_unaligned();
                let before_last = (src.add(n - 32) as *const u128).read_unaligned();
                let last = (src.add(n - 16) as *const u128).read_unaligned();
                (dest as *mut u128).write_unaligned(first);
                (dest.add(16) as *mut u128).write_unaligned(second);
                (dest.add(n - 32) as *mut u128).write_unaligned(before_last);
                (dest.add(n - 16) as *mut u128).write_unaligned(last);
            }
            _ => return false,
        }
    }
    true
}

/// The first and the last `size_of::<T>()` bytes of `n`, which is at
/// least that and at most twice that.
///
/// # Safety
///
/// As [`copy_small`].
#[inline(always)]
unsafe fn copy_ends<T: Copy>(dest: *mut u8, src: *const u8, n: usize) {
    let size = std::mem::size_of::<T>();
    // SAFETY: `size <= n`, so both ends are within the `n` bytes.
    unsafe {
        let first = (src as *const T).read_unaligned();
        let last = (src.add(n - size) as *const T).read_unaligned();
        (dest as *mut T).write_unaligned(first);
        (dest.add(n - size) as *mut T).write_unaligned(last);
    }
}

#[cfg(target_env = "musl")]
unsafe extern "C" {
    /// musl's `memcpy`, as `--wrap=memcpy` names it.
    fn __real_memcpy(dest: *mut u8, src: *const u8, n: usize) -> *mut u8;
}

/// `memcpy` for the static build (see the module's documentation).
///
/// # Safety
///
/// As `memcpy`.
#[cfg(target_env = "musl")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __wrap_memcpy(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: what the caller of `memcpy` vouches for.
    unsafe {
        if !copy_small(dest, src, n) {
            return __real_memcpy(dest, src, n);
        }
    }
    dest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_small_size_at_every_offset_copies_exactly_its_bytes() {
        let source: Vec<u8> = (0..200u8)
            .map(|b| b.wrapping_mul(37).wrapping_add(11))
            .collect();
        for n in 0..=64 {
            for from in 0..8 {
                for to in 0..8 {
                    let mut target = vec![0xAAu8; 200];
                    // SAFETY: both buffers hold `from + n` and `to + n` bytes.
                    let copied = unsafe {
                        copy_small(target.as_mut_ptr().add(to), source.as_ptr().add(from), n)
                    };
                    assert!(copied, "{n} bytes");
                    assert_eq!(&target[to..to + n], &source[from..from + n], "{n} bytes");
                    assert!(target[..to].iter().all(|&b| b == 0xAA), "before, {n} bytes");
                    assert!(
                        target[to + n..].iter().all(|&b| b == 0xAA),
                        "after, {n} bytes"
                    );
                }
            }
        }
    }

    #[test]
    fn more_than_64_bytes_are_left_to_musl() {
        let (source, mut target) = ([1u8; 65], [0u8; 65]);
        // SAFETY: both buffers hold 65 bytes.
        assert!(!unsafe { copy_small(target.as_mut_ptr(), source.as_ptr(), 65) });
        assert_eq!(target, [0u8; 65]);
    }
}
