# syntax=docker/dockerfile:1
# The production image: the path .ci/prod-smoke runs in CI, step for step (test/deploy/container-files.test.ts
# checks that the commands and the runtime files here are the ones that script runs).

# build stage: every dependency, then `npm run build` (tsc: src/ and schemas/ to dist/)
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci's postinstall applies patches/ to the installed packages (patch-package)
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# runtime stage: production dependencies only, the compiled code, and the files read at run time
FROM node:24-bookworm-slim AS runtime
# UV_THREADPOOL_SIZE as start:prod sets it (libuv reads it before the first line of the service):
# four argon2 hashes at once and one thread free for other work
ENV NODE_ENV=production \
    UV_THREADPOOL_SIZE=5 \
    HOST=0.0.0.0 \
    PORT=8080 \
    TLS=off \
    DATA_DIR=/var/lib/pir
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY drizzle ./drizzle
COPY public ./public
COPY --from=build /app/dist ./dist
RUN mkdir -p /var/lib/pir && chown node:node /var/lib/pir
USER node
EXPOSE 8080
# TLS ends at the load balancer: the probe says so (X-Forwarded-Proto), from loopback, which
# TRUST_PROXY must include
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/api/v1/health/ready',{headers:{'x-forwarded-proto':'https'}}).then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
# node itself is PID 1 (no npm, no shell): SIGTERM from `docker stop` reaches the server, which
# drains and exits within 10 s
CMD ["node", "--min-semi-space-size=64", "--max-semi-space-size=64", "dist/src/server.js"]
