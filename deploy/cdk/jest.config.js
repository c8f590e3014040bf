// The tests are compiled with the library (npm run build) and run as
// JavaScript, so jest needs no TypeScript transform.
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/dist/test'],
  testMatch: ['**/*.test.js'],
};
