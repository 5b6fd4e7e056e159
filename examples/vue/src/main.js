// Importing the package defines <ctxguard-toolbar> (in the browser; on a server it does nothing).
import "ctxguard-toolbar";
import { createApp } from "vue";
import App from "./App.vue";
import "./app.css";

createApp(App).mount("#app");
