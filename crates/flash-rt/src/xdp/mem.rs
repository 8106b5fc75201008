//! Shared memory for the runtime: anonymous memfd files (UMEMs and the ring
//! "fabric") and `MAP_SHARED` mappings of them. A memfd is what the monitor
//! hands to NF hosts; reopening it read-only through /proc gives the
//! read-only view single-copy receivers get of an upstream UMEM (a mapping of
//! a read-only fd can never be made writable).

use super::{FlashError, Result};
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Create a memfd of `len` bytes (zero-filled).
pub fn memfd(name: &str, len: usize) -> Result<OwnedFd> {
    let cname = CString::new(name)
        .map_err(|_| FlashError::Protocol(format!("memfd name `{name}` has a NUL")))?;
    // SAFETY: valid C string; flags are constants.
    let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(FlashError::last_os(format!("memfd_create({name})")));
    }
    // SAFETY: fd was just returned by memfd_create and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: fd is a valid memfd.
    if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } != 0 {
        return Err(FlashError::last_os(format!("ftruncate({name}, {len})")));
    }
    Ok(fd)
}

/// Reopen `fd` read-only (a new open file description on the same memfd).
pub fn reopen_readonly(fd: RawFd) -> Result<OwnedFd> {
    let path = CString::new(format!("/proc/self/fd/{fd}")).expect("no NUL in a formatted path");
    // SAFETY: valid C string.
    let ro = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if ro < 0 {
        return Err(FlashError::last_os("reopen memfd read-only"));
    }
    // SAFETY: fresh fd from open().
    Ok(unsafe { OwnedFd::from_raw_fd(ro) })
}

/// Size of the file behind `fd`.
pub fn fd_len(fd: RawFd) -> Result<usize> {
    // SAFETY: zeroed stat is a valid out-parameter.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: st is a valid out-pointer.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(FlashError::last_os("fstat"));
    }
    Ok(st.st_size as usize)
}

/// A `MAP_SHARED` mapping, unmapped on drop.
#[derive(Debug)]
pub struct Mapping {
    ptr: *mut u8,
    len: usize,
    writable: bool,
}

// SAFETY: the mapping is plain shared memory; synchronisation of its contents
// is the job of the rings built on top of it.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Map `len` bytes of `fd` at `offset`.
    pub fn map(fd: RawFd, len: usize, offset: u64, writable: bool, what: &str) -> Result<Mapping> {
        let prot = if writable {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        // SAFETY: a fresh mapping chosen by the kernel; failure is checked.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                fd,
                offset as libc::off_t,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(FlashError::last_os(format!("mmap {what} ({len} bytes)")));
        }
        Ok(Mapping {
            ptr: ptr.cast(),
            len,
            writable,
        })
    }

    /// First byte.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the mapping is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the mapping may be written.
    pub fn writable(&self) -> bool {
        self.writable
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: ptr/len describe a mapping created in `map` and not yet unmapped.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readonly_reopen_cannot_be_mapped_writable() {
        let fd = memfd("t", 4096).unwrap();
        let rw = Mapping::map(fd.as_raw_fd(), 4096, 0, true, "rw").unwrap();
        // SAFETY: in-bounds write to our own mapping.
        unsafe { *rw.ptr() = 7 };
        let ro_fd = reopen_readonly(fd.as_raw_fd()).unwrap();
        assert!(Mapping::map(ro_fd.as_raw_fd(), 4096, 0, true, "rw of ro").is_err());
        let ro = Mapping::map(ro_fd.as_raw_fd(), 4096, 0, false, "ro").unwrap();
        // SAFETY: in-bounds read.
        assert_eq!(unsafe { *ro.ptr() }, 7);
        assert_eq!(fd_len(ro_fd.as_raw_fd()).unwrap(), 4096);
    }
}
