/** Project > New project (docs/dashboard.md): a name, in a workspace the person owns. */
import { html, type SafeHtml } from '../../ui/html.ts';
import { dashboardPage, postForm, type Frame } from '../frame.ts';

export function newProjectPage(f: Frame, v: { workspaces: string[]; error?: string; name?: string }): SafeHtml {
  return dashboardPage(
    f,
    'New project',
    postForm(
      f,
      '/dashboard/projects',
      html`<label for="project-name">Name</label><input id="project-name" name="name" type="text" maxlength="60" required value="${v.name ?? ''}"${
        v.error && html` aria-invalid="true" aria-describedby="project-error" autofocus`
      }>${v.error && html`<p class="error" id="project-error">${v.error}</p>`}
<label for="project-workspace">Workspace</label><select id="project-workspace" name="workspace">${v.workspaces.map((w) => html`<option>${w}</option>`)}</select>`,
      html`<button type="submit">Create project</button>`,
    ),
  );
}
