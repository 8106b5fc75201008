//! Interval reasoning about packet addresses: for a pointer rooted at the
//! chain body's `data` parameter, the range of byte offsets it may take
//! (through GEPs, phis, selects and integer arithmetic on constants, masks,
//! shifts, zero-extended loads). Two accesses whose byte ranges cannot meet
//! do not alias — the fact LLVM's BasicAA cannot derive when header offsets
//! are phis (`l3_off` is 14, 18 or 22 depending on VLAN tags). Used by
//! cross-NF CSE of packet loads and by overwritten-logic elimination.

use crate::llvm_util::{Opcode, Val};
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMModuleRef;
use std::collections::HashMap;

const LIMIT: i64 = 1 << 40;

/// Memoised interval queries within one function.
#[derive(Default)]
pub struct Ranges {
    ints: HashMap<Val, Option<(i64, i64)>>,
    ptrs: HashMap<Val, Option<(i64, i64)>>,
}

fn clamp(r: (i64, i64)) -> Option<(i64, i64)> {
    (r.0 >= -LIMIT && r.1 <= LIMIT && r.0 <= r.1).then_some(r)
}

impl Ranges {
    /// Range of an integer SSA value (None: unknown).
    pub fn int(&mut self, v: Val, depth: u32) -> Option<(i64, i64)> {
        if let Some(k) = v.const_int() {
            let w = v.int_width();
            // Constants are read as signed when they look negative.
            let s = if w < 64 && (k >> (w - 1)) & 1 == 1 {
                (k as i64) - (1i64 << w)
            } else {
                k as i64
            };
            return Some((s, s));
        }
        if depth > 24 {
            return None;
        }
        if let Some(r) = self.ints.get(&v) {
            return *r;
        }
        self.ints.insert(v, None); // cycle guard
        let r = self.int_uncached(v, depth);
        self.ints.insert(v, r);
        r
    }

    fn int_uncached(&mut self, v: Val, depth: u32) -> Option<(i64, i64)> {
        let full = |w: u32| {
            if w < 40 {
                Some((0, (1i64 << w) - 1))
            } else {
                None
            }
        };
        let op = v.opcode()?;
        let a = v.operand(0);
        let b = v.operand(1);
        match op {
            Opcode::LLVMZExt => {
                let x = a?;
                self.int(x, depth + 1)
                    .filter(|r| r.0 >= 0)
                    .or_else(|| full(x.int_width()))
            }
            Opcode::LLVMSExt => self.int(a?, depth + 1),
            Opcode::LLVMTrunc => {
                let w = v.int_width();
                self.int(a?, depth + 1)
                    .filter(|r| r.0 >= 0 && w < 40 && r.1 < (1i64 << w))
                    .or_else(|| full(w))
            }
            Opcode::LLVMLoad => full(v.int_width()),
            Opcode::LLVMAdd => {
                let (x, y) = (self.int(a?, depth + 1)?, self.int(b?, depth + 1)?);
                clamp((x.0 + y.0, x.1 + y.1))
            }
            Opcode::LLVMSub => {
                let (x, y) = (self.int(a?, depth + 1)?, self.int(b?, depth + 1)?);
                clamp((x.0 - y.1, x.1 - y.0))
            }
            Opcode::LLVMMul => {
                let (x, y) = (self.int(a?, depth + 1)?, self.int(b?, depth + 1)?);
                let cands = [x.0 * y.0, x.0 * y.1, x.1 * y.0, x.1 * y.1];
                clamp((*cands.iter().min()?, *cands.iter().max()?))
            }
            Opcode::LLVMShl => {
                let (x, k) = (self.int(a?, depth + 1)?, b?.const_int()?);
                (x.0 >= 0 && k < 32)
                    .then(|| clamp((x.0 << k, x.1 << k)))
                    .flatten()
            }
            Opcode::LLVMLShr => {
                let k = b?.const_int()?;
                let x = self
                    .int(a?, depth + 1)
                    .filter(|r| r.0 >= 0)
                    .or_else(|| full(v.int_width()))?;
                (k < 63).then_some((x.0 >> k, x.1 >> k))
            }
            Opcode::LLVMAnd => {
                // x & mask with a non-negative constant mask is within [0, mask].
                let m = [a, b]
                    .into_iter()
                    .flatten()
                    .find_map(|o| o.const_int())
                    .filter(|m| (*m as i64) >= 0 && *m < LIMIT as u64)?;
                Some((0, m as i64))
            }
            Opcode::LLVMOr => {
                let (x, y) = (self.int(a?, depth + 1)?, self.int(b?, depth + 1)?);
                (x.0 >= 0 && y.0 >= 0)
                    .then(|| clamp((x.0.max(y.0), x.1 + y.1)))
                    .flatten()
            }
            Opcode::LLVMURem => {
                let k = b?.const_int()? as i64;
                (k > 0).then_some((0, k - 1))
            }
            Opcode::LLVMPHI => {
                let mut r: Option<(i64, i64)> = None;
                for (x, _) in v.phi_incoming() {
                    if x.is_undef_or_poison() {
                        continue;
                    }
                    let xr = self.int(x, depth + 1)?;
                    r = Some(r.map_or(xr, |r| (r.0.min(xr.0), r.1.max(xr.1))));
                }
                r
            }
            Opcode::LLVMSelect => {
                let (x, y) = (
                    self.int(v.operand(1)?, depth + 1)?,
                    self.int(v.operand(2)?, depth + 1)?,
                );
                Some((x.0.min(y.0), x.1.max(y.1)))
            }
            _ => None,
        }
    }

    /// Byte-offset range of pointer `p` from `base` (None: not provably
    /// `base + something bounded`). Null incoming pointers are ignored: they
    /// are never dereferenced.
    pub fn ptr(&mut self, m: LLVMModuleRef, p: Val, base: Val, depth: u32) -> Option<(i64, i64)> {
        if p == base {
            return Some((0, 0));
        }
        if depth > 24 {
            return None;
        }
        if let Some(r) = self.ptrs.get(&p) {
            return *r;
        }
        self.ptrs.insert(p, None);
        let r = self.ptr_uncached(m, p, base, depth);
        self.ptrs.insert(p, r);
        r
    }

    fn ptr_uncached(
        &mut self,
        m: LLVMModuleRef,
        p: Val,
        base: Val,
        depth: u32,
    ) -> Option<(i64, i64)> {
        match p.opcode().or_else(|| p.const_opcode())? {
            Opcode::LLVMGetElementPtr => {
                if p.num_operands() != 2 {
                    return None;
                }
                let b = self.ptr(m, p.operand(0)?, base, depth + 1)?;
                let elem = unsafe {
                    crate::llvm_util::type_store_size(m, c::LLVMGetGEPSourceElementType(p.0))
                } as i64;
                let i = self.int(p.operand(1)?, depth + 1)?;
                clamp((b.0 + i.0 * elem, b.1 + i.1 * elem))
            }
            Opcode::LLVMPHI => {
                let mut r: Option<(i64, i64)> = None;
                for (x, _) in p.phi_incoming() {
                    if x.is_null_ptr() || x.is_undef_or_poison() {
                        continue;
                    }
                    let xr = self.ptr(m, x, base, depth + 1)?;
                    r = Some(r.map_or(xr, |r| (r.0.min(xr.0), r.1.max(xr.1))));
                }
                r
            }
            Opcode::LLVMSelect => {
                let mut r: Option<(i64, i64)> = None;
                for x in [p.operand(1)?, p.operand(2)?] {
                    if x.is_null_ptr() {
                        continue;
                    }
                    let xr = self.ptr(m, x, base, depth + 1)?;
                    r = Some(r.map_or(xr, |r| (r.0.min(xr.0), r.1.max(xr.1))));
                }
                r
            }
            _ => None,
        }
    }

    /// Can `[p1, p1+s1)` and `[p2, p2+s2)` overlap, both being `base + range`?
    /// None when either address is not bounded relative to `base`.
    pub fn disjoint(
        &mut self,
        m: LLVMModuleRef,
        base: Val,
        p1: Val,
        s1: i64,
        p2: Val,
        s2: i64,
    ) -> Option<bool> {
        let a = self.ptr(m, p1, base, 0)?;
        let b = self.ptr(m, p2, base, 0)?;
        Some(a.1 + s1 <= b.0 || b.1 + s2 <= a.0)
    }
}
