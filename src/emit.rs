//! Emitters turn the stages' outputs into deployable artefacts for each
//! target: a FastClick configuration, a flash-rt deployment, or an Agilio
//! offload plan.
