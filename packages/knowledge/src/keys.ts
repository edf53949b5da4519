/**
 * Redis keys of the knowledge tools (docs/redis-schema.md, "knowledge (project data)"). Every key
 * carries the project as its hash tag, so one project's keys live on one Cluster slot and a Lua
 * script can touch them together; no key is shared between projects.
 */

export function kbKeys(project: string) {
  const p = `svc:kb:{${project}}`;
  return {
    /**
     * "<epoch>:<sequence>": the sequence moves by one on every document change, the random epoch
     * when the key is gone (a flush), so a replica never trusts an index of an older epoch.
     */
    version: `${p}:ver`,
    /** list: "<sequence> <document name>" per change, the last CHANGE_LOG_MAX kept. */
    log: `${p}:log`,
    /** string: characters stored in the project's documents (the project storage quota). */
    chars: `${p}:chars`,
    /** hash: document name -> document record (JSON). */
    docs: `${p}:docs`,
    /** hash: section id -> section record (JSON, with its vector). */
    sections: `${p}:sec`,
    /** hash with PX: one upload's sections (id -> JSON) until its script moves them into `sections`. */
    staged: (uploadId: string) => `${p}:staged:${uploadId}`,
    /** zset: injected context entries of one session, scored by expiry (ms). */
    context: (sessionHash: string) => `${p}:ctx:${sessionHash}`,
    /** hash: memory id -> memory record (JSON). */
    memories: `${p}:mem`,
    /** zset: memory id scored by expiry (ms; +inf when it never expires). */
    memoryExpiry: `${p}:mem-exp`,
    /** string: bytes of the memory records kept (MEMORY_LIMITS.bytesPerProject). */
    memoryBytes: `${p}:mem-bytes`,
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

/** Keys of one workspace's knowledge usage, under the workspace's own hash tag. */
export function kbWorkspaceKeys(workspace: string) {
  return {
    /** string: characters stored in all the workspace's projects, plus uploads in flight. */
    chars: `svc:kb-ws:{${workspace}}:chars`,
  };
}
