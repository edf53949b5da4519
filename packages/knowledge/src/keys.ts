/**
 * Redis keys of the knowledge tools (docs/redis-schema.md, "knowledge (project data)"). Every key
 * carries the project as its hash tag, so one project's keys live on one Cluster slot and a Lua
 * script can touch them together; no key is shared between projects.
 */

export function kbKeys(project: string) {
  const p = `svc:kb:{${project}}`;
  return {
    /** A new random value on every document change; replicas compare it to their cached index. */
    version: `${p}:ver`,
    /** hash: document name -> document record (JSON). */
    docs: `${p}:docs`,
    /** hash: section id -> section record (JSON, with its vector). */
    sections: `${p}:sec`,
    /** zset: injected context entries of one session, scored by expiry (ms). */
    context: (sessionHash: string) => `${p}:ctx:${sessionHash}`,
    /** hash: memory id -> memory record (JSON). */
    memories: `${p}:mem`,
    /** zset: memory id scored by expiry (ms; +inf when it never expires). */
    memoryExpiry: `${p}:mem-exp`,
    /** hash: swarm id -> swarm record; and swarm name -> id. */
    swarms: `${p}:swarms`,
    swarmNames: `${p}:swarm-names`,
    /** string with PX: the lease on one resource of one swarm. */
    lease: (swarmId: string, resourceHash: string) => `${p}:lease:${swarmId}:${resourceHash}`,
    /** hash: task id -> task record (JSON); zset of children ids per parent ("root" for the top). */
    tasks: `${p}:tasks`,
    taskChildren: (parent: string) => `${p}:task-children:${parent}`,
  };
}
