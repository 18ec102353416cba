// Where the daemon keeps its data by default. A pure function of its
// inputs, like the default socket path, so the daemon and memoryctl (which
// writes it into a service definition) agree.

/** The environment variable that decides the default data dir on Linux and others. */
export interface DataDirEnv {
  XDG_DATA_HOME?: string | undefined;
}

/**
 * The default (README.md "Configuration"): `$XDG_DATA_HOME/memoryd` (`~/.local/share/memoryd`)
 * on Linux and others, `~/Library/Application Support/memoryd` on macOS.
 * An empty XDG_DATA_HOME counts as unset.
 */
export function defaultDataDir(env: DataDirEnv, platform: string, home: string): string {
  const base = home.replace(/\/+$/, '');
  if (platform === 'darwin') return `${base}/Library/Application Support/memoryd`;
  const xdg = env.XDG_DATA_HOME?.replace(/\/+$/, '');
  return `${xdg ? xdg : `${base}/.local/share`}/memoryd`;
}
