/** Project > Tools forms (docs/dashboard.md "Forms"): the contract's setBuiltinTool body. */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { defineForm } from '../form.ts';

export const TOOL_FORMS = {
  approval: defineForm('setBuiltinTool', '/projects/:slug/tools/:tool/approval', MANAGEMENT_OPERATIONS.setBuiltinTool.body),
} as const;
