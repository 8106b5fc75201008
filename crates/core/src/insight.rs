//! IR-level insight data (Clara §3.1): an NF lowered to LLVM IR for the
//! proxy NIC target, every instruction annotated (compute, stack memory,
//! packet memory, stateful memory, framework call) and written as a word of
//! the compacted vocabulary, per basic block and per function, with the
//! proxy compiler's machine-instruction counts per function when measured.
//!
//! `nfc-reducer` produces it (`insight_ir`), `nfc-smartnic` (generator,
//! accelerator classifier) and `nfc-predictor` (sequence models) consume it.

use serde::{Deserialize, Serialize};

/// What an IR instruction does, for the SmartNIC model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstrClass {
    /// Arithmetic, logic, comparisons, casts, address arithmetic, control flow.
    Compute,
    /// A load or store of a function-local (stack) variable: stateless.
    StackMemory,
    /// A load or store of packet bytes (stateless, per packet).
    PacketMemory,
    /// A load or store of state that persists across packets (globals and
    /// the NF's state instance, `ctx->state`).
    StatefulMemory,
    /// A load or store through a pointer whose target the annotation cannot
    /// name (neither stack, packet nor state).
    IndirectMemory,
    /// A call to the NF framework (nf.h helpers, libc, intrinsics).
    FrameworkCall,
    /// A call to one of the NF's own functions.
    Call,
}

/// One basic block: its compacted words and the class of each instruction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IrBlock {
    pub name: String,
    pub words: Vec<String>,
    pub classes: Vec<InstrClass>,
    /// Memory accesses that are not stack accesses, in 32-bit words (an i64
    /// load is two), as the proxy ISA has to issue them.
    pub memory_words: u32,
}

/// Machine-code counts of one function, from the proxy NIC compiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProxyCounts {
    /// Every machine instruction of the function.
    pub instructions: u32,
    /// Loads and stores whose base register is not the stack or frame pointer.
    pub memory: u32,
}

impl ProxyCounts {
    /// Machine instructions that are not non-stack memory accesses: what the
    /// compute model predicts (Clara's "compute instructions", stack traffic included).
    pub fn compute(&self) -> u32 {
        self.instructions.saturating_sub(self.memory)
    }
}

/// One defined function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IrFunction {
    pub name: String,
    /// Defined by the framework header (nf.h), not by the NF: such functions
    /// are neither trained on nor evaluated.
    pub framework: bool,
    pub blocks: Vec<IrBlock>,
    /// Measured by the proxy compiler; `None` when it was not run.
    #[serde(default)]
    pub proxy: Option<ProxyCounts>,
}

impl IrFunction {
    /// Every word of the function, blocks in order.
    pub fn words(&self) -> impl Iterator<Item = &str> {
        self.blocks
            .iter()
            .flat_map(|b| b.words.iter().map(|s| s.as_str()))
    }
    /// Number of IR instructions.
    pub fn len(&self) -> usize {
        self.blocks.iter().map(|b| b.words.len()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Instructions of a class.
    pub fn count(&self, class: InstrClass) -> usize {
        self.blocks
            .iter()
            .map(|b| b.classes.iter().filter(|c| **c == class).count())
            .sum()
    }
    /// Non-stack memory accesses in 32-bit words (Clara counts these instead of predicting them).
    pub fn memory_words(&self) -> u32 {
        self.blocks.iter().map(|b| b.memory_words).sum()
    }
}

/// One compilation unit (an NF, or one synthesised program).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IrUnit {
    /// Name of the NF or program.
    pub name: String,
    /// The proxy target triple the IR was produced for.
    pub target: String,
    pub functions: Vec<IrFunction>,
}
