//! Thin, copyable handles over the LLVM C API for the analyses the passes
//! need and inkwell does not expose (use lists, operands, opcodes, constant
//! expressions, metadata). Every handle is only valid while the owning
//! `inkwell::context::Context` lives; the passes never outlive it, which is
//! what makes the `unsafe` blocks here sound.

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{
    LLVMBasicBlockRef, LLVMBuilderRef, LLVMModuleRef, LLVMTypeRef, LLVMValueRef,
};
use inkwell::llvm_sys::LLVMTypeKind;
use std::ffi::CString;

pub use inkwell::llvm_sys::LLVMIntPredicate as IntPred;
pub use inkwell::llvm_sys::LLVMOpcode as Opcode;

/// An LLVM value (instruction, constant, argument, global or function).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Val(pub LLVMValueRef);

/// An LLVM basic block.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Block(pub LLVMBasicBlockRef);

fn opt(v: LLVMValueRef) -> Option<Val> {
    if v.is_null() {
        None
    } else {
        Some(Val(v))
    }
}

impl Val {
    pub fn name(self) -> String {
        unsafe {
            let mut len = 0usize;
            let p = c::LLVMGetValueName2(self.0, &mut len);
            if p.is_null() {
                return String::new();
            }
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
        }
    }
    pub fn set_name(self, name: &str) {
        unsafe { c::LLVMSetValueName2(self.0, name.as_ptr() as *const _, name.len()) }
    }
    pub fn is_instruction(self) -> bool {
        unsafe { !c::LLVMIsAInstruction(self.0).is_null() }
    }
    pub fn is_constant(self) -> bool {
        unsafe { c::LLVMIsConstant(self.0) != 0 }
    }
    pub fn is_const_expr(self) -> bool {
        unsafe { !c::LLVMIsAConstantExpr(self.0).is_null() }
    }
    pub fn is_global_var(self) -> bool {
        unsafe { !c::LLVMIsAGlobalVariable(self.0).is_null() }
    }
    pub fn is_function(self) -> bool {
        unsafe { !c::LLVMIsAFunction(self.0).is_null() }
    }
    pub fn is_argument(self) -> bool {
        unsafe { !c::LLVMIsAArgument(self.0).is_null() }
    }
    pub fn is_undef_or_poison(self) -> bool {
        unsafe { c::LLVMIsUndef(self.0) != 0 || c::LLVMIsPoison(self.0) != 0 }
    }
    pub fn is_null_ptr(self) -> bool {
        unsafe { !c::LLVMIsAConstantPointerNull(self.0).is_null() }
    }
    /// Opcode of an instruction.
    pub fn opcode(self) -> Option<Opcode> {
        if self.is_instruction() {
            Some(unsafe { c::LLVMGetInstructionOpcode(self.0) })
        } else {
            None
        }
    }
    /// Opcode of a constant expression.
    pub fn const_opcode(self) -> Option<Opcode> {
        if self.is_const_expr() {
            Some(unsafe { c::LLVMGetConstOpcode(self.0) })
        } else {
            None
        }
    }
    pub fn num_operands(self) -> u32 {
        unsafe { c::LLVMGetNumOperands(self.0).max(0) as u32 }
    }
    pub fn operand(self, i: u32) -> Option<Val> {
        if i >= self.num_operands() {
            return None;
        }
        unsafe { opt(c::LLVMGetOperand(self.0, i)) }
    }
    pub fn operands(self) -> Vec<Val> {
        (0..self.num_operands())
            .filter_map(|i| self.operand(i))
            .collect()
    }
    pub fn set_operand(self, i: u32, v: Val) {
        unsafe { c::LLVMSetOperand(self.0, i, v.0) }
    }
    /// Every user of this value (with repetition when a user uses it twice).
    pub fn users(self) -> Vec<Val> {
        let mut out = vec![];
        unsafe {
            let mut u = c::LLVMGetFirstUse(self.0);
            while !u.is_null() {
                out.push(Val(c::LLVMGetUser(u)));
                u = c::LLVMGetNextUse(u);
            }
        }
        out
    }
    pub fn replace_all_uses_with(self, new: Val) {
        unsafe { c::LLVMReplaceAllUsesWith(self.0, new.0) }
    }
    pub fn erase(self) {
        unsafe { c::LLVMInstructionEraseFromParent(self.0) }
    }
    pub fn parent_block(self) -> Option<Block> {
        unsafe {
            let b = c::LLVMGetInstructionParent(self.0);
            if b.is_null() {
                None
            } else {
                Some(Block(b))
            }
        }
    }
    pub fn next_instruction(self) -> Option<Val> {
        unsafe { opt(c::LLVMGetNextInstruction(self.0)) }
    }
    pub fn type_of(self) -> LLVMTypeRef {
        unsafe { c::LLVMTypeOf(self.0) }
    }
    pub fn is_ptr_type(self) -> bool {
        unsafe { c::LLVMGetTypeKind(self.type_of()) == LLVMTypeKind::LLVMPointerTypeKind }
    }
    /// Zero-extended value of a constant integer (up to 64 bits).
    pub fn const_int(self) -> Option<u64> {
        unsafe {
            if c::LLVMIsAConstantInt(self.0).is_null() {
                return None;
            }
            if c::LLVMGetIntTypeWidth(self.type_of()) > 64 {
                return None;
            }
            Some(c::LLVMConstIntGetZExtValue(self.0))
        }
    }
    pub fn int_width(self) -> u32 {
        unsafe { c::LLVMGetIntTypeWidth(self.type_of()) }
    }
    pub fn icmp_predicate(self) -> IntPred {
        unsafe { c::LLVMGetICmpPredicate(self.0) }
    }
    /// Called function of a call instruction, when direct.
    pub fn called_function(self) -> Option<Val> {
        unsafe {
            let f = c::LLVMGetCalledValue(self.0);
            if f.is_null() || c::LLVMIsAFunction(f).is_null() {
                None
            } else {
                Some(Val(f))
            }
        }
    }
    pub fn num_arg_operands(self) -> u32 {
        unsafe { c::LLVMGetNumArgOperands(self.0) }
    }
    pub fn is_declaration(self) -> bool {
        unsafe { c::LLVMIsDeclaration(self.0) != 0 }
    }
    pub fn global_initializer(self) -> Option<Val> {
        unsafe { opt(c::LLVMGetInitializer(self.0)) }
    }
    pub fn global_value_type(self) -> LLVMTypeRef {
        unsafe { c::LLVMGlobalGetValueType(self.0) }
    }
    pub fn is_global_constant(self) -> bool {
        unsafe { c::LLVMIsGlobalConstant(self.0) != 0 }
    }
    /// Element `i` of a constant aggregate (array, struct, vector, or a
    /// zero initialiser of one).
    pub fn aggregate_element(self, i: u32) -> Option<Val> {
        unsafe { opt(c::LLVMGetAggregateElement(self.0, i)) }
    }
    pub fn num_successors(self) -> u32 {
        unsafe { c::LLVMGetNumSuccessors(self.0) }
    }
    pub fn successor(self, i: u32) -> Block {
        unsafe { Block(c::LLVMGetSuccessor(self.0, i)) }
    }
    pub fn is_conditional_branch(self) -> bool {
        self.opcode() == Some(Opcode::LLVMBr) && unsafe { c::LLVMIsConditional(self.0) != 0 }
    }
    pub fn branch_condition(self) -> Option<Val> {
        if self.is_conditional_branch() {
            unsafe { opt(c::LLVMGetCondition(self.0)) }
        } else {
            None
        }
    }
    /// Incoming (value, block) pairs of a phi.
    pub fn phi_incoming(self) -> Vec<(Val, Block)> {
        unsafe {
            (0..c::LLVMCountIncoming(self.0))
                .map(|i| {
                    (
                        Val(c::LLVMGetIncomingValue(self.0, i)),
                        Block(c::LLVMGetIncomingBlock(self.0, i)),
                    )
                })
                .collect()
        }
    }
    /// Source location `file:line:col` from debug info, when present.
    pub fn debug_location(self) -> Option<String> {
        unsafe {
            let mut len = 0u32;
            let f = c::LLVMGetDebugLocFilename(self.0, &mut len);
            if f.is_null() || len == 0 {
                return None;
            }
            let file =
                String::from_utf8_lossy(std::slice::from_raw_parts(f as *const u8, len as usize))
                    .into_owned();
            let line = c::LLVMGetDebugLocLine(self.0);
            let col = c::LLVMGetDebugLocColumn(self.0);
            if line == 0 {
                return None;
            }
            Some(format!("{file}:{line}:{col}"))
        }
    }
    /// Function parameters.
    pub fn params(self) -> Vec<Val> {
        unsafe {
            (0..c::LLVMCountParams(self.0))
                .map(|i| Val(c::LLVMGetParam(self.0, i)))
                .collect()
        }
    }
    pub fn blocks(self) -> Vec<Block> {
        let mut out = vec![];
        unsafe {
            let mut b = c::LLVMGetFirstBasicBlock(self.0);
            while !b.is_null() {
                out.push(Block(b));
                b = c::LLVMGetNextBasicBlock(b);
            }
        }
        out
    }
    pub fn entry_block(self) -> Option<Block> {
        self.blocks().first().copied()
    }
    /// Every instruction of a function, in block order.
    pub fn instructions(self) -> Vec<Val> {
        self.blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .collect()
    }
    pub fn linkage(self) -> inkwell::llvm_sys::LLVMLinkage {
        unsafe { c::LLVMGetLinkage(self.0) }
    }
    pub fn set_linkage(self, l: inkwell::llvm_sys::LLVMLinkage) {
        unsafe { c::LLVMSetLinkage(self.0, l) }
    }
    pub fn volatile(self) -> bool {
        unsafe { c::LLVMGetVolatile(self.0) != 0 }
    }
    /// Type loaded by a load, or stored by a store.
    pub fn access_type(self) -> LLVMTypeRef {
        match self.opcode() {
            Some(Opcode::LLVMStore) => self
                .operand(0)
                .map(|v| v.type_of())
                .unwrap_or(std::ptr::null_mut()),
            _ => self.type_of(),
        }
    }
    /// Pointer operand of a load or store.
    pub fn pointer_operand(self) -> Option<Val> {
        match self.opcode() {
            Some(Opcode::LLVMLoad) => self.operand(0),
            Some(Opcode::LLVMStore) => self.operand(1),
            _ => None,
        }
    }
}

impl Block {
    pub fn instructions(self) -> Vec<Val> {
        let mut out = vec![];
        unsafe {
            let mut i = c::LLVMGetFirstInstruction(self.0);
            while !i.is_null() {
                out.push(Val(i));
                i = c::LLVMGetNextInstruction(i);
            }
        }
        out
    }
    pub fn terminator(self) -> Option<Val> {
        unsafe { opt(c::LLVMGetBasicBlockTerminator(self.0)) }
    }
    pub fn first_instruction(self) -> Option<Val> {
        unsafe { opt(c::LLVMGetFirstInstruction(self.0)) }
    }
    pub fn successors(self) -> Vec<Block> {
        match self.terminator() {
            Some(t) => (0..t.num_successors()).map(|i| t.successor(i)).collect(),
            None => vec![],
        }
    }
    pub fn parent_function(self) -> Val {
        unsafe { Val(c::LLVMGetBasicBlockParent(self.0)) }
    }
    pub fn first_non_phi(self) -> Option<Val> {
        self.instructions()
            .into_iter()
            .find(|i| i.opcode() != Some(Opcode::LLVMPHI))
    }
}

/// Functions of a module.
pub fn functions(m: LLVMModuleRef) -> Vec<Val> {
    let mut out = vec![];
    unsafe {
        let mut f = c::LLVMGetFirstFunction(m);
        while !f.is_null() {
            out.push(Val(f));
            f = c::LLVMGetNextFunction(f);
        }
    }
    out
}

/// Global variables of a module.
pub fn globals(m: LLVMModuleRef) -> Vec<Val> {
    let mut out = vec![];
    unsafe {
        let mut g = c::LLVMGetFirstGlobal(m);
        while !g.is_null() {
            out.push(Val(g));
            g = c::LLVMGetNextGlobal(g);
        }
    }
    out
}

pub fn get_function(m: LLVMModuleRef, name: &str) -> Option<Val> {
    let n = CString::new(name).ok()?;
    unsafe { opt(c::LLVMGetNamedFunction(m, n.as_ptr())) }
}

/// A builder positioned before `at`. Dispose with [`Builder::drop`].
pub struct Builder(pub LLVMBuilderRef);

impl Builder {
    pub fn before(at: Val) -> Self {
        unsafe {
            let ctx = c::LLVMGetTypeContext(at.type_of());
            let b = c::LLVMCreateBuilderInContext(ctx);
            // Before the debug records attached to `at` too, so they stay with it.
            c::LLVMPositionBuilderBeforeInstrAndDbgRecords(b, at.0);
            Builder(b)
        }
    }
    pub fn at_end(bb: Block) -> Self {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(bb.parent_function().0));
            let b = c::LLVMCreateBuilderInContext(ctx);
            c::LLVMPositionBuilderAtEnd(b, bb.0);
            Builder(b)
        }
    }
    /// Materialise a GEP (constant expression or instruction) as a new
    /// instruction here, with base `base` and the same indices.
    pub fn gep_like(&self, ce: Val, base: Val) -> Val {
        unsafe {
            let ty = c::LLVMGetGEPSourceElementType(ce.0);
            let mut idx: Vec<LLVMValueRef> = (1..ce.num_operands())
                .map(|i| c::LLVMGetOperand(ce.0, i))
                .collect();
            let name = b"\0";
            Val(c::LLVMBuildInBoundsGEP2(
                self.0,
                ty,
                base.0,
                idx.as_mut_ptr(),
                idx.len() as u32,
                name.as_ptr() as *const _,
            ))
        }
    }
    pub fn ret(&self, v: Val) -> Val {
        unsafe { Val(c::LLVMBuildRet(self.0, v.0)) }
    }
}

impl Drop for Builder {
    fn drop(&mut self) {
        unsafe { c::LLVMDisposeBuilder(self.0) }
    }
}

/// `undef` of the value's type.
pub fn undef_like(like: Val) -> Val {
    unsafe { Val(c::LLVMGetUndef(like.type_of())) }
}

/// Strip the instructions of a function and make it `ret <v>` (for i32 functions).
pub fn replace_body_with_return_i32(f: Val, v: u64) {
    unsafe {
        let blocks = f.blocks();
        // Drop all references first so blocks can be deleted in any order.
        for b in &blocks {
            for i in b.instructions() {
                if !i.users().is_empty() {
                    i.replace_all_uses_with(undef_like(i));
                }
            }
        }
        for b in blocks.iter().rev() {
            for i in b.instructions().into_iter().rev() {
                i.erase();
            }
        }
        for b in blocks.iter().skip(1) {
            c::LLVMDeleteBasicBlock(b.0);
        }
        let entry = blocks[0];
        let ret_ty = c::LLVMGetReturnType(c::LLVMGlobalGetValueType(f.0));
        let b = Builder::at_end(entry);
        b.ret(Val(c::LLVMConstInt(ret_ty, v, 1)));
    }
}

/// Size of a type in bytes under the module's data layout.
pub fn type_store_size(m: LLVMModuleRef, ty: LLVMTypeRef) -> u64 {
    unsafe {
        let dl = inkwell::llvm_sys::target::LLVMGetModuleDataLayout(m);
        inkwell::llvm_sys::target::LLVMABISizeOfType(dl, ty)
    }
}

/// Whether a type contains a pointer anywhere inside.
pub fn type_has_pointer(ty: LLVMTypeRef) -> bool {
    unsafe {
        match c::LLVMGetTypeKind(ty) {
            LLVMTypeKind::LLVMPointerTypeKind => true,
            LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                type_has_pointer(c::LLVMGetElementType(ty))
            }
            LLVMTypeKind::LLVMStructTypeKind => {
                let n = c::LLVMCountStructElementTypes(ty);
                (0..n).any(|i| type_has_pointer(c::LLVMStructGetTypeAtIndex(ty, i)))
            }
            _ => false,
        }
    }
}

/// Count instructions in all defined functions of a module.
pub fn count_instructions(m: LLVMModuleRef) -> u64 {
    functions(m)
        .into_iter()
        .filter(|f| !f.is_declaration())
        .map(|f| f.instructions().len() as u64)
        .sum()
}
