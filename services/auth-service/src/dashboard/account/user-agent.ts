/**
 * A browser's User-Agent said briefly, as GitHub's and Google's session lists do: the browser with
 * its major version and the system (with its version where the string tells it), so two sessions
 * of different browsers or machines read apart. RFC 9110 §10.1.5 gives the header no grammar
 * beyond product tokens, so this reads the tokens the common browsers send, and says "A browser"
 * for any other.
 */

const BROWSERS: [RegExp, string][] = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/OPR\/(\d+)/, 'Opera'],
  [/Firefox\/(\d+)|FxiOS\/(\d+)/, 'Firefox'],
  [/CriOS\/(\d+)/, 'Chrome'],
  [/HeadlessChrome\/(\d+)/, 'Headless Chrome'],
  [/Chrom(?:e|ium)\/(\d+)/, 'Chrome'],
  [/Version\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
  [/^curl\/(\d+)/, 'curl'],
];

function systemOf(agent: string): string {
  const android = /Android (\d+)/.exec(agent);
  if (android) return `Android ${android[1]}`;
  const ios = /(?:iPhone|iPad)[^)]*? OS (\d+)/.exec(agent);
  if (ios) return `${agent.includes('iPad') ? 'iPadOS' : 'iOS'} ${ios[1]}`;
  if (/Windows NT 10/.test(agent)) return 'Windows';
  if (/Windows/.test(agent)) return 'Windows (old)';
  const mac = /Mac OS X (\d+)[._](\d+)/.exec(agent);
  if (mac) return mac[1] === '10' && Number(mac[2]) >= 15 ? 'macOS' : `macOS ${mac[1]}.${mac[2]}`;
  if (/CrOS/.test(agent)) return 'ChromeOS';
  if (/Linux/.test(agent)) return 'Linux';
  return '';
}

/** "Chrome 131 on Linux", "Safari 17 on iOS 17", "Firefox 128 on Windows"; "A browser" when unknown. */
export function deviceOf(agent: string): string {
  let browser = 'A browser';
  for (const [re, name] of BROWSERS) {
    const m = re.exec(agent);
    if (m) {
      const version = m.slice(1).find(Boolean);
      browser = version ? `${name} ${version}` : name;
      break;
    }
  }
  const system = systemOf(agent);
  return system ? `${browser} on ${system}` : browser;
}
