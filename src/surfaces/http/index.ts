export { createHttpApp } from './create-http-app.js'
export { startHttpServer, type HttpServer } from './start-http-server.js'
export { statusForCode } from './status-for-code.js'
