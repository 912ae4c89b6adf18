# syntax=docker/dockerfile:1
# The gateway image (DESIGN.md S3). Multi-stage: build the monorepo, deploy the gateway with its production
# dependencies only, run as the unprivileged `node` user with the state in the /data volume.
#   docker build -t mcppipe-gateway . && docker run -p 3000:3000 -v mcppipe-data:/data \
#     -e PUBLIC_URL=https://mcp.example.com -e MCPPIPE_ADMIN_PASSWORD_HASH='$2b$12$…' mcppipe-gateway

FROM node:20.20-bookworm-slim AS build
WORKDIR /src
ENV PNPM=pnpm@12.4.2 TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
COPY . .
RUN npx -y $PNPM install --frozen-lockfile \
 && npx -y $PNPM --filter @mcppipe/gateway... build \
 && npx -y $PNPM --filter @mcppipe/gateway deploy --prod /out

FROM node:20.20-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data MCPPIPE_CONFIG=/config/mcp.json
WORKDIR /app
COPY --from=build --chown=root:root /out /app
RUN mkdir -p /data /config && chown node:node /data && chmod 0700 /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/bin.js"]
CMD ["serve"]
