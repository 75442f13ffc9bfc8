//! The process's global allocator: the system allocator plus a per-thread count of
//! net heap bytes, so that a script VM's memory can be capped (Rhai has no allocator
//! hook of its own; Lua's cap uses mlua's own limit).
//!
//! It only counts; it never refuses an allocation. Whoever wants a cap compares
//! [`thread_net`] before and during a call.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static NET: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

#[inline]
fn add(bytes: isize) {
    // `try_with`: allocations during thread teardown are simply not counted.
    let _ = NET.try_with(|n| {
        let now = n.get().wrapping_add(bytes);
        n.set(now);
        if bytes > 0 {
            let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
        }
    });
}

/// Starts a new peak measurement on this thread (see [`peak_since_reset`]).
pub fn reset_peak() {
    let _ = PEAK.try_with(|p| p.set(thread_net()));
}

/// The highest [`thread_net`] value since the last [`reset_peak`].
pub fn peak_since_reset() -> isize {
    PEAK.try_with(Cell::get).unwrap_or(0)
}

/// Bytes allocated minus bytes freed by this thread so far.
pub fn thread_net() -> isize {
    NET.try_with(Cell::get).unwrap_or(0)
}

/// The system allocator, counted.
#[derive(Debug)]
pub struct MeteredAlloc;

// SAFETY: every method forwards to `System` unchanged; the counting has no effect on
// the memory handed out.
unsafe impl GlobalAlloc for MeteredAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) };
        add(-(layout.size() as isize));
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: MeteredAlloc = MeteredAlloc;

#[cfg(test)]
mod tests {
    #[test]
    fn counts_what_this_thread_holds() {
        let before = super::thread_net();
        let v = vec![0u8; 1 << 20];
        assert!(super::thread_net() - before >= 1 << 20);
        drop(v);
        assert!(super::thread_net() - before < 1024);
    }
}
