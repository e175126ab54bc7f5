//! The compressed bitmaps of a split index's `link` extension, in git's
//! EWAH layout (`ewah/ewah_io.c`): the number of bits, the number of
//! 64-bit words, the words, and where the last marker word is, all
//! big-endian. A marker word says how many words of one repeated bit
//! come next (bits 1 to 32, the bit itself in bit 0) and how many
//! literal words follow it (bits 33 to 63).

/// The set bits of the bitmap at the start of `bytes`, in order, and how
/// many bytes it took; `None` when it is not a whole bitmap.
pub fn decode(bytes: &[u8]) -> Option<(Vec<usize>, usize)> {
    let word32 = |at: usize| -> Option<usize> {
        Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize)
    };
    let bit_size = word32(0)?;
    let count = word32(4)?;
    let words_end = 8usize.checked_add(count.checked_mul(8)?)?;
    let length = words_end.checked_add(4)?;
    if bytes.len() < length {
        return None;
    }
    let word = |i: usize| u64::from_be_bytes(bytes[8 + 8 * i..16 + 8 * i].try_into().unwrap());
    let mut bits = Vec::new();
    let (mut i, mut at) = (0, 0usize);
    while i < count {
        let marker = word(i);
        let run = ((marker >> 1) & 0xffff_ffff) as usize;
        let literals = (marker >> 33) as usize;
        let run_end = at.checked_add(run.checked_mul(64)?)?;
        // Ones past the bitmap's size are not bits of it: a marker that
        // claims billions of them costs nothing.
        if marker & 1 == 1 {
            bits.extend(at.min(bit_size)..run_end.min(bit_size));
        }
        at = run_end;
        for k in 0..literals {
            if i + 1 + k >= count {
                return None;
            }
            let literal = word(i + 1 + k);
            bits.extend((0..64).filter(|b| literal >> b & 1 == 1).map(|b| at + b));
            at += 64;
        }
        i += 1 + literals;
    }
    bits.retain(|&bit| bit < bit_size);
    Some((bits, length))
}

/// `bits` (ascending, no repeats) as an EWAH bitmap: runs of empty words
/// and the literal words between them, as git writes them.
pub fn encode(bits: &[usize]) -> Vec<u8> {
    let bit_size = bits.last().map_or(0, |&last| last + 1);
    // (empty words before, literal words) per marker.
    let mut groups: Vec<(u64, Vec<u64>)> = vec![(0, Vec::new())];
    let mut next_word = 0usize;
    for &bit in bits {
        let index = bit / 64;
        let group = groups.last_mut().expect("one group at least");
        if index + 1 == next_word {
            *group.1.last_mut().expect("the word of the bit before") |= 1 << (bit % 64);
            continue;
        }
        let gap = (index - next_word) as u64;
        if gap > 0 && !group.1.is_empty() || group.1.len() >= MAX_LITERALS {
            groups.push((gap, vec![1 << (bit % 64)]));
        } else {
            group.0 += gap;
            group.1.push(1 << (bit % 64));
        }
        next_word = index + 1;
    }
    let mut words = Vec::new();
    let mut last_marker = 0;
    for (empty, literals) in groups {
        // A run longer than a marker holds takes markers of its own.
        let mut empty = empty;
        while empty > MAX_RUN {
            words.push(MAX_RUN << 1);
            empty -= MAX_RUN;
        }
        last_marker = words.len();
        words.push(empty << 1 | (literals.len() as u64) << 33);
        words.extend(literals);
    }
    let mut out = Vec::with_capacity(12 + 8 * words.len());
    out.extend_from_slice(&(bit_size as u32).to_be_bytes());
    out.extend_from_slice(&(words.len() as u32).to_be_bytes());
    for word in &words {
        out.extend_from_slice(&word.to_be_bytes());
    }
    out.extend_from_slice(&(last_marker as u32).to_be_bytes());
    out
}

/// The longest run of empty words, and the most literal words, one marker
/// word can say.
const MAX_RUN: u64 = 0xffff_ffff;
const MAX_LITERALS: usize = 0x7fff_ffff;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_what_git_wrote() {
        // The delete bitmap of a split index git wrote after `git rm
        // --cached` of the fourth of five entries.
        let bytes = [
            0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0,
        ];
        assert_eq!(decode(&bytes), Some((vec![3], bytes.len())));
        // An empty bitmap, as git writes one: a single marker word.
        let empty = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(decode(&empty), Some((vec![], empty.len())));
        assert_eq!(encode(&[]), empty);
        assert_eq!(encode(&[3]), bytes);
    }

    #[test]
    fn encodes_sparse_and_dense_bits_back_to_themselves() {
        let cases: [Vec<usize>; 4] = [
            vec![0],
            vec![0, 1, 63, 64, 65, 127],
            vec![5, 1000, 1001, 70_000, 100_000],
            (0..300).map(|n| n * 3).collect(),
        ];
        for bits in cases {
            let bytes = encode(&bits);
            assert_eq!(
                decode(&bytes),
                Some((bits.clone(), bytes.len())),
                "{bits:?}"
            );
        }
        // A run of ones, as git may write one, decodes too.
        let mut ones = Vec::new();
        ones.extend_from_slice(&130u32.to_be_bytes());
        ones.extend_from_slice(&2u32.to_be_bytes());
        ones.extend_from_slice(&(1u64 << 1 | 1 | 1 << 33).to_be_bytes());
        ones.extend_from_slice(&3u64.to_be_bytes());
        ones.extend_from_slice(&0u32.to_be_bytes());
        let (bits, _) = decode(&ones).unwrap();
        assert_eq!(bits, (0..66).collect::<Vec<_>>());
    }

    #[test]
    fn a_run_of_ones_past_the_bitmaps_size_is_cut_at_it() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&3u32.to_be_bytes());
        bytes.extend_from_slice(&1u32.to_be_bytes());
        bytes.extend_from_slice(&(0xffff_ffffu64 << 1 | 1).to_be_bytes());
        bytes.extend_from_slice(&0u32.to_be_bytes());
        assert_eq!(decode(&bytes), Some((vec![0, 1, 2], bytes.len())));
    }

    #[test]
    fn a_truncated_bitmap_is_refused() {
        let bytes = encode(&[1, 200]);
        assert_eq!(decode(&bytes[..bytes.len() - 1]), None);
    }
}
