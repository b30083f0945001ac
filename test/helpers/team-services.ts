import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { startTeamServices, type TeamServices } from './team-services-script.js';

export {
  freshDatabase,
  parseTeamEnv,
  runTeamScript,
  startTeamServices,
  type ScriptRun,
  type TeamEnv,
  type TeamServices,
} from './team-services-script.js';

/** Starts the services once for the calling test file and stops them after its last test. */
export function useTeamServices(): () => TeamServices {
  let services: TeamServices | undefined;
  beforeAll(async () => {
    services = await startTeamServices();
  });
  afterAll(async () => {
    if (!services) return;
    try {
      await services.stop();
    } finally {
      rmSync(services.dir, { recursive: true, force: true });
    }
  });
  return () => {
    if (!services)
      throw new Error('the team services are not started: call useTeamServices() at the top of a test file');
    return services;
  };
}
