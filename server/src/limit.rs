//! The rate limit: a token bucket per client address, one for every request and a
//! slower one for submissions (each plays games in the sandbox). A request over its
//! limit is answered `429 Too Many Requests` with `Retry-After`, in one line.
//!
//! Not here: the size of a request (the body limit, in `pages`), or who may submit
//! (`submit`). The buckets are kept in memory; past [`MAX_CLIENTS`] addresses, the full
//! buckets (clients that have been quiet) are forgotten first.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

use crate::Rates;

/// Addresses remembered at most (beyond it, those whose bucket is full are dropped).
pub const MAX_CLIENTS: usize = 100_000;

/// Which bucket a request takes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Any request.
    Request,
    /// A submission (on top of its request).
    Submission,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Token buckets per address and kind.
#[derive(Debug)]
pub struct Limiter {
    rates: Rates,
    buckets: Mutex<HashMap<(IpAddr, Kind), Bucket>>,
}

impl Limiter {
    /// A limiter of `rates`.
    pub fn new(rates: Rates) -> Limiter {
        Limiter { rates, buckets: Mutex::new(HashMap::new()) }
    }

    fn shape(&self, kind: Kind) -> (f64, f64) {
        match kind {
            Kind::Request => (self.rates.per_second, f64::from(self.rates.burst.max(1))),
            Kind::Submission => {
                (self.rates.submissions_per_minute / 60.0, f64::from(self.rates.submission_burst.max(1)))
            }
        }
    }

    /// Takes a token of `kind` for `ip` at `now`: `Ok`, or `Err(seconds)` to wait.
    pub fn take_at(&self, ip: IpAddr, kind: Kind, now: Instant) -> Result<(), u64> {
        let (rate, burst) = self.shape(kind);
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= MAX_CLIENTS && !buckets.contains_key(&(ip, kind)) {
            buckets.retain(|&(_, k), b| {
                let (rate, burst) = self.shape(k);
                b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * rate < burst
            });
        }
        let b = buckets.entry((ip, kind)).or_insert(Bucket { tokens: burst, at: now });
        b.tokens = (b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * rate).min(burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else if rate <= 0.0 {
            Err(3600)
        } else {
            Err(((1.0 - b.tokens) / rate).ceil().max(1.0) as u64)
        }
    }

    /// [`Limiter::take_at`] now.
    pub fn take(&self, ip: IpAddr, kind: Kind) -> Result<(), u64> {
        self.take_at(ip, kind, Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_burst_passes_then_the_rate_refills_it_per_address() {
        let l = Limiter::new(Rates { per_second: 2.0, burst: 3, submissions_per_minute: 6.0, submission_burst: 3 });
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        let t = Instant::now();
        for _ in 0..3 {
            assert_eq!(l.take_at(a, Kind::Request, t), Ok(()));
        }
        assert_eq!(l.take_at(a, Kind::Request, t), Err(1), "the fourth at once waits");
        assert_eq!(l.take_at(b, Kind::Request, t), Ok(()), "another address has its own bucket");
        assert_eq!(l.take_at(a, Kind::Request, t + Duration::from_millis(500)), Ok(()), "half a second: one token");
        assert!(l.take_at(a, Kind::Request, t + Duration::from_millis(500)).is_err());
    }

    #[test]
    fn submissions_have_a_bucket_of_their_own() {
        let l = Limiter::new(Rates { per_second: 100.0, burst: 100, submissions_per_minute: 6.0, submission_burst: 3 });
        let a = IpAddr::from([10, 0, 0, 1]);
        let t = Instant::now();
        for _ in 0..3 {
            assert_eq!(l.take_at(a, Kind::Submission, t), Ok(()));
        }
        assert_eq!(l.take_at(a, Kind::Submission, t), Err(10), "6 a minute: one every 10 s");
        assert_eq!(l.take_at(a, Kind::Request, t), Ok(()));
    }
}
