/**
 * @module sim/engine
 * Public surface of the simulated engine: configuration, the engine factory and the cost model.
 */
export type { KvCacheDtype, WeightDtype } from '../config/vocab.js';
export type { EngineOptions } from '../settings.js';
export type { EngineConfig, MemoryPlan } from './config.js';
export {
  ACTIVATION_FIXED_GIB,
  activationFor,
  describeEngine,
  planMemory,
  resolveEngineConfig,
  vllmBatchDefaults,
} from './config.js';
export type { ModelAccounting, StepCost, StepShape } from './cost.js';
export { CostModel, modelAccounting } from './cost.js';
export { createEngine, EngineCore, type RawStep } from './engine.js';
export type * from './types.js';
