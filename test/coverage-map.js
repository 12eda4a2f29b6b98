// Coverage is measured on the service's own code: src/ and schemas/, not the tests or the CLIs
// (the CLIs run as child processes in their tests, which coverage does not follow).
export default () => ['src/**', 'schemas/**']
