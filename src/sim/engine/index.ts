/**
 * @module sim/engine
 * Public surface of the simulated engine: configuration, the engine factory, the cost model and
 * the real-time driver that steps it on a wall clock.
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
export { type DriverOptions, type DriverStats, RealTimeDriver } from './realtime-driver.js';
export type * from './types.js';
