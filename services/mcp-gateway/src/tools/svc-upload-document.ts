/** svc_upload_document: store a text or Markdown document, split by headings and indexed; same name replaces. */
import { LIMITS, LimitError, uploadDocument } from '@svc/knowledge';
import { STORAGE_QUOTAS } from '@svc/policy';
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { projectOf } from './svc-knowledge-shared.ts';
import type { ToolDefinition } from './types.ts';
import { defineTool, text, ToolFailure } from './types.ts';

export function svcUploadDocument(deps: KnowledgeToolDeps): ToolDefinition {
  const { knowledge } = deps;
  return defineTool({
    name: 'svc_upload_document',
    title: 'Upload a document',
    description:
      'Stores a text or Markdown document in the project, split into sections at its headings and indexed for search. ' +
      'Uploading a name that exists replaces that document.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'content'],
      properties: {
        name: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          pattern: '^[^\\u0000-\\u001f]+$',
          description: 'Document name, unique in the project (e.g. "runbook.md").',
        },
        content: {
          type: 'string',
          minLength: 1,
          maxLength: LIMITS.documentChars,
          description: `The document as text or Markdown (at most ${LIMITS.documentChars} characters).`,
        },
        path: {
          type: 'string',
          maxLength: 500,
          description: 'Optional origin of the document (a repository path or URL), kept for citations.',
        },
      },
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    async call(args, caller) {
      const project = projectOf(caller);
      let result;
      try {
        const quota = STORAGE_QUOTAS[caller.plan];
        result = await uploadDocument(knowledge.redis, knowledge.embedder, project, args, {
          onEmbedFailure: knowledge.onEmbedFailure,
          tenant: caller.workspace,
          quota: { projectChars: quota.projectChars, workspace: { id: caller.workspace, chars: quota.workspaceChars } },
        });
      } catch (err) {
        if (err instanceof LimitError) throw new ToolFailure(err.message);
        throw err;
      }
      const { document, replaced, headings } = result;
      if (headings.length === 0) throw new ToolFailure('The document has no text to index.');
      const shown = headings.slice(0, 20).join(', ') + (headings.length > 20 ? `, … (${headings.length - 20} more)` : '');
      return text(
        `${replaced ? 'Replaced' : 'Stored'} "${document.name}": ${headings.length} section${headings.length === 1 ? '' : 's'} (${shown}).`,
        {
          name: document.name,
          path: document.path,
          replaced,
          sections: headings.length,
          headings,
          characters: document.chars,
          uploaded_at: document.uploadedAt,
        },
      );
    },
  });
}
