/** The New project form (docs/dashboard.md "Forms"): the contract's createProject body and the workspace it goes in. */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { defineForm } from '../form.ts';

const { createProject } = MANAGEMENT_OPERATIONS;

export const PROJECT_FORMS = {
  create: defineForm('createProject', '/projects', {
    type: 'object',
    properties: { ...createProject.body.properties, workspace: { type: 'string', description: 'A workspace the person owns.' } },
    required: [...createProject.body.required, 'workspace'],
  }),
} as const;
