/** What loadConfig() throws: the message names the variable and what its value must be. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
