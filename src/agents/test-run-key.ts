/** The built-in skill that test-runs an agent; never offered inside a test run itself. */
export const TEST_RUN_KEY = 'test_run'
