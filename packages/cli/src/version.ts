/** The version both CLIs report (`client_version` of the device flow, the User-Agent). */
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
