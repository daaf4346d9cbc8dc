// A vitest reporter for `npm test`: each test file's whole time (its worker's preparation, imports,
// setup, hooks and tests) written as JSON to the file ECF_TEST_FILE_TIMES names. The JSON reporter's
// start and end times span a file's tests only and leave out its beforeAll, where the browser and
// stack files start their local stack and Chromium.
import { writeFileSync } from "node:fs";

export default class FileTimesReporter {
  onTestRunEnd(testModules) {
    const file = process.env.ECF_TEST_FILE_TIMES;
    if (!file) return;
    const times = testModules.map((module) => {
      const d = module.diagnostic();
      const ms = d.prepareDuration + d.environmentSetupDuration + d.collectDuration + d.setupDuration + d.duration;
      return { file: module.moduleId, seconds: ms / 1000 };
    });
    writeFileSync(file, JSON.stringify(times));
  }
}
