/**
 * Your own cards and frontend tools: each module here registers them with `registerTool`
 * (see README, "Write your own card"). `main.tsx` imports this file once, before the app
 * renders.
 */
import "./weatherAlert";
