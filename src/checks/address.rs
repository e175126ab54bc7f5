//! Which addresses an `http_ok` check may not reach unless the operator
//! allows it: everything that is not the public internet, so that a goal
//! file cannot point steward at the operator's own machine or network.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// IPv4 networks outside the public internet, as (network, prefix length).
const PRIVATE_V4: [(Ipv4Addr, u8); 14] = [
    (Ipv4Addr::new(0, 0, 0, 0), 8), // "this network", with the unspecified address
    (Ipv4Addr::new(10, 0, 0, 0), 8), // private
    (Ipv4Addr::new(100, 64, 0, 0), 10), // carrier-grade NAT
    (Ipv4Addr::new(127, 0, 0, 0), 8), // loopback
    (Ipv4Addr::new(169, 254, 0, 0), 16), // link-local
    (Ipv4Addr::new(172, 16, 0, 0), 12), // private
    (Ipv4Addr::new(192, 0, 0, 0), 24), // IETF protocol assignments
    (Ipv4Addr::new(192, 0, 2, 0), 24), // documentation (TEST-NET-1)
    (Ipv4Addr::new(192, 168, 0, 0), 16), // private
    (Ipv4Addr::new(198, 18, 0, 0), 15), // benchmarking
    (Ipv4Addr::new(198, 51, 100, 0), 24), // documentation (TEST-NET-2)
    (Ipv4Addr::new(203, 0, 113, 0), 24), // documentation (TEST-NET-3)
    (Ipv4Addr::new(224, 0, 0, 0), 4), // multicast
    (Ipv4Addr::new(240, 0, 0, 0), 4), // reserved, with broadcast 255.255.255.255
];

/// IPv6 networks outside the public internet, as (network, prefix length).
/// Forms that carry an IPv4 address are also judged by that address.
const PRIVATE_V6: [(Ipv6Addr, u8); 10] = [
    (Ipv6Addr::UNSPECIFIED, 128),
    (Ipv6Addr::LOCALHOST, 128),
    (Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48), // local-use IPv4/IPv6 translation
    (Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0), 64),     // discard-only
    (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32), // documentation
    (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20),    // documentation
    (Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7),     // unique local
    (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10),    // link-local
    (Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10),    // site-local (deprecated)
    (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8),     // multicast
];

/// The top 96 bits of `::a.b.c.d`, IPv4-compatible (deprecated).
const V4_COMPATIBLE: u128 = 0;
/// The top 96 bits of `::ffff:a.b.c.d`, IPv4-mapped.
const V4_MAPPED: u128 = 0xffff;
/// The top 96 bits of `64:ff9b::a.b.c.d`, NAT64's well-known prefix.
const V4_NAT64: u128 = Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0).to_bits() >> 32;

/// True for any address that is not a public unicast address.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_private_v4(v4),
        IpAddr::V6(v6) => {
            PRIVATE_V6
                .iter()
                .any(|&(net, len)| same_prefix(v6.to_bits(), net.to_bits(), len))
                || embedded_v4(v6).is_some_and(is_private_v4)
        }
    }
}

fn is_private_v4(ip: Ipv4Addr) -> bool {
    // Aligned at the top, IPv4 prefixes compare like IPv6 ones.
    let top = |v4: Ipv4Addr| u128::from(v4.to_bits()) << 96;
    PRIVATE_V4
        .iter()
        .any(|&(net, len)| same_prefix(top(ip), top(net), len))
}

/// The IPv4 address an IPv6 address stands for, if any: a socket connected
/// to `::ffff:127.0.0.1` talks to 127.0.0.1.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let bits = ip.to_bits();
    matches!(bits >> 32, V4_COMPATIBLE | V4_MAPPED | V4_NAT64).then(|| {
        // The low 32 bits are the IPv4 address; truncation is the point.
        Ipv4Addr::from_bits(bits as u32)
    })
}

/// Whether `a` and `b` agree in their first `len` bits.
fn same_prefix(a: u128, b: u128, len: u8) -> bool {
    len == 0 || (a ^ b) >> (128 - u32::from(len)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn private(text: &str) -> bool {
        is_private(
            text.parse()
                .unwrap_or_else(|_| panic!("`{text}` is not an address")),
        )
    }

    #[test]
    fn every_non_public_ipv4_range_is_private() {
        for text in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.0",
            "100.127.255.255",
            "127.0.0.1",
            "127.255.255.254",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(private(text), "{text} should be private");
        }
    }

    #[test]
    fn addresses_just_outside_the_ranges_are_public() {
        for text in [
            "1.1.1.1",
            "8.8.8.8",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "169.253.255.255",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.0",
            "192.0.3.0",
            "192.167.255.255",
            "192.169.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
        ] {
            assert!(!private(text), "{text} should be public");
        }
    }

    #[test]
    fn every_non_public_ipv6_range_is_private() {
        for text in [
            "::",
            "::1",
            "64:ff9b:1::1",
            "100::1",
            "2001:db8::1",
            "3fff:fff::1",
            "fc00::1",
            "fdff:ffff::1",
            "fe80::1",
            "febf:ffff::1",
            "fec0::1",
            "ff02::1",
        ] {
            assert!(private(text), "{text} should be private");
        }
        for text in [
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "fbff::1",
            "2001:db9::1",
        ] {
            assert!(!private(text), "{text} should be public");
        }
    }

    #[test]
    fn ipv6_forms_of_ipv4_addresses_are_judged_by_the_ipv4_address() {
        for text in [
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "::ffff:0.0.0.0",
            "::127.0.0.1",
            "::192.168.0.1",
            "64:ff9b::10.0.0.1",
        ] {
            assert!(private(text), "{text} should be private");
        }
        for text in ["::ffff:8.8.8.8", "::8.8.8.8", "64:ff9b::1.1.1.1"] {
            assert!(!private(text), "{text} should be public");
        }
    }

    #[test]
    fn prefixes_compare_only_their_leading_bits() {
        assert!(same_prefix(0, u128::MAX, 0));
        assert!(same_prefix(u128::MAX, u128::MAX - 1, 127));
        assert!(!same_prefix(u128::MAX, u128::MAX - 1, 128));
    }
}
