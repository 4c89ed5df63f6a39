/**
 * @module sim/engine
 * Public surface of the simulated engine: configuration, the engine factory and the cost model.
 */
export type { EngineConfig, EngineOptions, MemoryPlan } from './config.js';
export {
  ACTIVATION_FIXED_GIB,
  activationFor,
  describeEngine,
  planMemory,
  resolveEngineConfig,
  vllmBatchDefaults,
} from './config.js';
export type { KvCacheDtype, ModelAccounting, StepCost, StepShape, WeightDtype } from './cost.js';
export { CostModel, modelAccounting } from './cost.js';
export { createEngine, EngineCore, type RawStep } from './engine.js';
export type * from './types.js';
