// The benchmark inputs, generated deterministically (a fixed-seed PRNG, no
// data files): the same bytes for the native criterion benches and the browser
// page. Runs in Node and in the browser (no imports).
//
//   mixed    ~1 MB: English prose, source code, CJK, JSON and emoji chat, interleaved
//   prose    ~1 MB of English prose only (the reference for the worst cases)
//   a        1 MB of 'a'
//   letters  1 MB of random lowercase letters
//   base64   1 MB of base64 (750,000 random bytes)
//   cjk      1 MB of random CJK ideographs (U+4E00..U+9FFF, 3 bytes each): one pre-tokenizer piece
//
// CLI: node tests/bench/corpus.mjs OUTDIR   writes OUTDIR/<name>.txt for each input, and
// the real-text inputs of ./real.mjs (en, zh, code; built from files on disk), and
// prose-2 and mixed-2 (the same kinds from other seeds, for "a second text of the same kind").

export const SIZE = 1_000_000;

/** mulberry32: a small deterministic 32-bit PRNG. */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (r, list) => list[Math.floor(r() * list.length)];
const utf8 = (s) => new TextEncoder().encode(s).length;

const WORDS = (
  "the of and to in is that it for was on with as be by at this from have or are not an but which " +
  "context window budget token model message history summary attachment preview tool output agent " +
  "request response server client browser stream event limit count cut head tail buffer reserve " +
  "people would could should every because between through during without before after around " +
  "system user assistant compaction trigger target emergency pass source checkpoint reload state " +
  "quickly carefully naturally however although therefore meanwhile otherwise instead perhaps " +
  "government information development experience environment performance community university " +
  "measure measured measuring design designed engineer engineering question answer problem solution " +
  "it's don't we're they've I'll you'd isn't can't won't " +
  "London Paris Tokyo Berlin Monday January OpenAI Rust WebAssembly Chromium JavaScript"
).split(" ");

// A Zipf-distributed vocabulary: the real words above as the most frequent ranks, then a long
// tail of invented words from syllables, so that word repetition (and so any tokenizer's
// word cache) behaves roughly as in real prose rather than cycling through a few hundred words.
const SYLLABLES = "ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo ga ge gi go ha he hi ho ja jo ka ke ki ko la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo wa we wi xa ya yo za zo tion ment ness able ing er est ly ous ive al ic".split(" ");
const VOCAB_SIZE = 30_000;
const VOCAB = (() => {
  const r = rng(0x5eed_00ff);
  const words = [...WORDS];
  const seen = new Set(words);
  while (words.length < VOCAB_SIZE) {
    let w = "";
    const n = 1 + Math.floor(r() * 4);
    for (let i = 0; i < n; i++) w += pick(r, SYLLABLES);
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  return words;
})();
const ZIPF = (() => {
  const cum = new Float64Array(VOCAB_SIZE);
  let total = 0;
  for (let i = 0; i < VOCAB_SIZE; i++) cum[i] = total += 1 / (i + 1);
  return { cum, total };
})();
function zipfWord(r) {
  const x = r() * ZIPF.total;
  let lo = 0;
  let hi = VOCAB_SIZE - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ZIPF.cum[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo];
}

function sentence(r) {
  const n = 6 + Math.floor(r() * 18);
  const words = [];
  for (let i = 0; i < n; i++) {
    let w = zipfWord(r);
    if (r() < 0.05) w = String(Math.floor(r() * 100000));
    if (r() < 0.08 && i < n - 1) w += ",";
    words.push(w);
  }
  words[0] = words[0][0].toUpperCase() + words[0].slice(1);
  return words.join(" ") + pick(r, [".", ".", ".", "?", "!", ":"]);
}

function prose(r) {
  const sentences = [];
  const n = 3 + Math.floor(r() * 6);
  for (let i = 0; i < n; i++) sentences.push(sentence(r));
  return sentences.join(" ") + "\n\n";
}

const IDENTS = ["count", "tokens", "budget", "ledger", "message", "history", "encoder", "piece", "rank", "offset", "limit", "snapshot", "value", "result", "index", "buffer"];

function code(r) {
  const a = pick(r, IDENTS);
  const b = pick(r, IDENTS);
  const n = Math.floor(r() * 1000);
  switch (Math.floor(r() * 4)) {
    case 0:
      return `pub fn ${a}_${b}(&self, ${b}: &[u32]) -> Result<usize, Error> {\n    let mut ${a} = 0usize;\n    for (i, x) in ${b}.iter().enumerate() {\n        if *x > ${n} {\n            ${a} += i * 2; // ${pick(r, WORDS)} ${pick(r, WORDS)}\n        }\n    }\n    Ok(${a})\n}\n\n`;
    case 1:
      return `export async function ${a}${b[0].toUpperCase()}${b.slice(1)}(input) {\n  const ${b} = await fetch(\`/api/${a}?limit=${n}\`);\n  if (!${b}.ok) throw new Error("${pick(r, WORDS)} failed: " + ${b}.status);\n  return (await ${b}.json()).map((x) => x.${a} ?? null);\n}\n\n`;
    case 2:
      return `def ${a}_${b}(self, ${b}: list[int]) -> dict:\n    """${sentence(r)}"""\n    out = {k: v for k, v in enumerate(${b}) if v % ${n + 1} == 0}\n    return {"${a}": len(out), "items": out}\n\n`;
    default:
      return `#include <stdio.h>\nint ${a}_${b}(const char *s, size_t n) {\n\tint acc = ${n};\n\tfor (size_t i = 0; i < n; ++i) acc = (acc << 5) ^ s[i];\n\treturn acc & 0x7fffffff;\n}\n\n`;
  }
}

const CJK =
  "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高间由问很最重并物手应战向头文体政美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次度门任常先海通教儿原东声提立及比员解水名真论处走义各入几口认条平系气题活尔更别打女变四神总何电数安少报才结反受目太量再感建务做接必场件计管期市直德资命山金指克许统区保至队形社便空决治展马科司五基眼书非则听白却界达光放强即像难且权思王象完设式色路记南品住告类求据程北边死张该交规万取拉格望觉术领共确传师观清今切院让识候带导争运笑飞风步改收根干造言联持组每济车亲极林服快办议往元英士证近失转夫令准布始怎呢存未远叫台单影具罗字爱击流备兵连调深商算质团集百需价花党华城石级整府离况亚请技际约示复病息究线似官火断精满支视消越器容照须九增研写称企八功吗包片史委乎查轻易早曾除农找装广显吧阿李标谈吃图念六引历首医局突专费号尽另周较注语仅考落青随选列武红响虽推势参希古众构房半节土投某案黑维革划敌致陈律足态护七兴派孩验责营星够章音跟志底站严巴例防族供效续施留讲型料终答紧黄绝奇察母京段依批群项故按河米围江织害斗双境客纪采举杀攻父苏密低朝友诉止细愿千值仍男钱破网热助倒育属坐帝限船脸职速刻乐否刚威毛状率甚独球般普怕弹校苦创假久错承印晚兰试股拿脑预谁益阳若哪微尼继送急血惊伤素药适波夜省初喜卫源食险待述陆习置居劳财环排福纳欢雷警获模充负云停木游龙树疑层冷洲冲射略范竟句室异激汉村哈策演简卡罪判担州静退既衣您宗积余痛检差富灵协角占配征修皮挥胜降阶审沉坚善妈刘读啊超免压银买皇养伊怀执副乱抗犯追帮宣佛岁航优怪香著田铁控税左右份穿艺背阵草脚概恶块顿敢守酒岛托央户烈洋哥索胡款靠评版宝座释景顾弟登货互付伯慢欧换闻危忙核暗姐介坏讨丽良序升监临亮露永呼味野架域沙掉括舰鱼杂误湾吉减编楚肯测败屋跑梦散温困剑渐封救贵枪缺楼县尚毫移娘朋画班智亦耳恩短掌恐遗固席松秘谢鲁遇康虑幸均销钟诗藏赶剧票损忽巨炮旧端探湖录叶春乡附吸予礼港雨呀板庭妇归睛饭额含顺输摇招婚脱补谓督毒油疗旅泽材灭逐莫笔亡鲜词圣择寻厂睡博勒烟授诺伦岸奥唐卖俄炸载洛健堂旁宫喝借君禁阴园谋宋避抓荣姑孙逃牙束跳顶玉镇雪午练迫爷篇肉嘴馆遍凡础洞卷坦牛宁纸诸训私庄祖丝翻暴森塔默握戏隐熟骨访弱蒙歌店鬼软典欲萨伙遭盘爸扩盖弄雄稳忘亿刺拥徒姆杨齐赛趣曲刀床迎冰虚玩析窗醒妻透购替塞努休虎扬途侵刑绿兄迅套贸毕唯谷轮库迹尤竞街促延震弃甲伟麻川申缓潜闪售灯针哲络抵朱埃抱鼓植纯夏忍页杰筑折郑贝尊吴秀混臣雅振染盛怒舞圆搞狂措姓残秋培迷诚宽宇猛摆梅毁伸摩盟末乃悲拍丁赵硬麦蒋操耶阻订彩抽赞魔纷沿喊违妹浪汇币丰蓝殊献桌啦瓦莱援译夺汽烧距裁偏符勇触课敬哭懂墙袭召罚侠厅拜巧侧韩冒债曼融惯享戴童犹乘挂奖绍厚纵障讯涉彻刊丈爆乌役描洗玛患妙镜唱烦签仙彼弗症仿倾牌陷鸟轰咱菜闭奋庆撤泪茶疾缘播朗杜奶季丹狗尾仪偷奔珠虫驻孔宜艾桥淡翼恨繁寒伴叹旦愈潮粮缩罢聚径恰挑袋灰捕徐珍幕映裂泰隔启尖忠累炎暂估泛荒偿横拒瑞忆孤鼻闹羊呆厉衡胞零穷舍码赫婆魂灾洪腿胆津俗辩胸晓劲贫仁偶辑邦恢赖圈摸仰润堆碰艇稍迟辆废净凶署壁御奉旋冬矿抬蛋晨伏吹鸡倍糊秦盾杯租骑乏隆诊奴摄丧污渡旗甘耐凭扎抢绪粗肩梁幻菲皆碎宙叔岩荡综爬荷悉蒂返井壮薄悄扫敏碍殖详迪矛霍允幅撒剩凯颗骂赏液番箱贴漫酸郎腰舒眉忧浮辛恋餐吓挺励辞艘键伍峰尺昨黎辈贯侦滑券崇扰宪绕趋慈乔阅汗枝拖墨胁插箭腊粉泥氏彭拔骗凤慧媒佩愤扑龄驱惜豪掩兼跃尸肃帕驶堡届欣惠册储飘桑闲惨洁踪勃宾频仇磨递邪撞拟滚奏巡颜剂绩贡疯坡瞧截燃焦殿伪柳锁逼颇昏劝呈搜勤戒驾漂饮曹朵仔柔俩孟腐幼践籍牧凉牲佳娜浓芳稿竹腹跌逻垂遵脉貌柏狱猜怜惑陶兽帐饰贷昌叙躺钢沟寄扶铺邓寿惧询汤盗肥尝匆辉奈扣廷澳嘛董迁凝慰厌脏腾幽怨鞋丢埋泉涌辖躲晋紫艰魏吾慌祝邮吐狠鉴曰械咬邻赤挤弯椅陪割揭韦悟聪雾锋梯猫祥阔誉筹丛牵鸣沈阁穆屈旨袖猎臂蛇贺柱抛鼠瑟戈牢逊迈欺吨琴衰瓶恼燕仲诱狼池疼卢仗冠粒遥吕玄尘冯抚浅敦纠钻晶岂峡苍喷耗凌敲菌赔涂粹扁亏寂煤熊恭湿循暖糖赋抑秩帽哀宿踏烂袁侯抖夹昆肝擦猪炼恒慎搬纽纹玻渔磁铜齿跨押怖漠疲叛遣兹祭醉拳弥斜档稀捷肤疫肿豆削岗晃吞宏癌肚隶履涨耀扭坛拨沃绘伐堪仆郭牺歼墓雇廉契拼惩捉覆刷劫嫌瓜歇雕闷乳串娃缴唤赢莲霸桃妥瘦搭赴岳嘉舱俊址庞耕锐缝悔邀玲惟斥宅添挖呵讼氧浩羽斤酷掠妖祸侍乙妨贪挣汪尿莉悬唇翰仓轨枚盐览傅帅庙芬屏寺胖璃愚滴疏萧姿颤丑劣柯寸扔盯辱匹俱辨饿蜂哦腔郁溃谨糟葛苗肠忌溜鸿爵鹏鹰笼丘桂滋聊挡纲肌茨壳痕碗穴膀卓贤卧膜毅锦欠哩函茫昂薛皱夸豫胃舌剥傲拾窝睁携陵哼棉晴铃填饲渴吻扮逆脆喘罩卜炉柴愉绳胎蓄眠竭喂傻慕浑奸扇柜悦拦诞饱乾泡贼亭夕爹酬儒姻卵氛泄杆挨僧蜜吟猩遂狭肖甜霞驳裕顽於摘矮秒卿畜咽披辅勾盆疆赌塑畏吵囊嗯泊肺骤缠冈羞瞪吊贾漏斑涛悠鹿俘锡卑葬铭滩嫁催璇翅盒蛮矣潘歧赐鲍锅廊拆灌勉盲宰佐啥胀扯禧辽抹筒棋裤唉朴咐孕誓喉妄拘链驰栏逝窃艳臭纤玑棵趁匠盈翁愁瞬婴孝颈倘浙谅蔽畅赠妮莎尉冻跪闯葡後厨鸭颠遮谊圳吁仑辟瘤嫂陀框谭亨钦庸歉芝吼甫衫摊宴嘱衷娇陕矩浦讶耸裸碧摧薪淋耻胶屠鹅饥盼脖虹翠崩账萍逢赚撑翔倡绵猴枯巫昭怔渊凑溪蠢禅阐旺寓藤匪伞碑挪琼脂谎慨菩萄狮掘抄岭晕逮砍掏狄晰罕挽脾舟痴蔡剪脊弓懒叉拐喃僚捐姊骚拓歪粘柄坑陌窄湘兆崖骄刹鞭芒筋聘钩棍嚷腺弦焰耍俯厘愣厦恳饶钉寡憾摔叠惹喻谱愧煌徽溶坠煞巾滥洒堵瓷咒姨棒郡浴媚稣淮哎屁漆淫巢吩撰啸滞玫硕钓蝶膝姚茂躯吏猿寨恕渠戚辰舶颁惶狐讽笨袍嘲啡泼衔倦涵雀旬僵撕肢垄夷逸茅侨舆窑涅蒲谦杭噢弊勋刮郊凄捧浸砖鼎篮蒸饼亩肾陡爪兔殷贞荐哑炭坟眨搏咳拢舅昧擅爽咖搁禄雌哨巩绢螺裹昔轩谬谍龟媳姜瞎冤鸦蓬巷琳栽沾诈斋瞒彪厄咨纺罐桶壤糕颂膨谐垒咕隙辣绑宠嘿兑霉挫稽辐乞纱裙嘻哇绣杖塘衍轴攀膊譬斌祈踢肆坎轿棚泣屡躁邱凰溢椎砸趟帘帆栖窜丸斩堤塌贩厢掀喀乖谜捏阎滨虏匙芦苹卸沼钥株祷剖熙哗劈怯棠胳桩瑰娱娶沫嗓蹲焚淘嫩韵衬匈钧竖峻豹捞菊鄙魄兜哄颖镑屑蚁壶怡渗秃迦旱哟咸焉谴宛稻铸锻伽詹毙恍贬烛骇芯汁桓坊驴朽靖佣汝碌迄冀荆崔雁绅珊榜诵傍彦醇笛禽勿娟瞄幢寇睹贿踩霆呜拱妃蔑谕缚诡篷淹腕煮倩卒勘馨逗甸贱炒灿敞蜡囚栗辜垫妒魁谣寞蜀甩涯枕丐泳奎泌逾叮黛燥掷藉枢憎鲸弘倚侮藩拂鹤蚀浆芙垃烤晒霜剿蕴圾绸屿氢驼妆捆铅逛淑榴丙痒钞蹄犬躬昼藻蛛褐颊奠募耽蹈陋侣魅岚侄虐堕陛莹荫狡阀绞膏垮茎缅喇绒搅凳梭丫姬诏钮棺耿缔懈嫉灶匀嗣鸽澡凿纬沸畴刃遏烁嗅叭熬瞥骸奢拙栋毯桐砂莽泻坪梳杉晤稚蔬蝇捣顷麽尴镖诧尬硫嚼羡沦沪旷彬芽狸冥碳咧惕暑咯萝汹腥窥俺潭崎麟捡拯厥澄萎哉涡滔暇溯鳞酿茵愕瞅暮衙诫斧兮焕棕佑嘶妓喧蓉删樱伺嗡娥梢坝蚕敷澜杏绥冶庇挠搂倏聂婉噪稼鳍菱盏匿吱寝揽髓秉哺矢啪帜邵嗽挟缸揉腻驯缆晌瘫贮觅朦僻隋蔓咋嵌虔畔琐碟涩胧嘟蹦冢浏裔襟叨诀旭虾簿啤擒枣嘎苑牟呕骆凸熄兀喔裳凹赎屯膛浇灼裘砰棘橡碱聋姥瑜毋娅沮萌俏黯撇粟粪尹苟癫蚂禹廖俭帖煎缕窦簇棱叩呐瑶墅莺烫蛙歹伶葱哮眩坤廓讳啼乍瓣矫跋枉梗厕琢讥釉窟敛轼庐胚呻绰扼懿炯竿慷虞锤栓桨蚊磅孽惭戳禀鄂馈垣溅咚钙礁彰豁眯磷雯墟迂瞻颅琉悼蝴拣渺眷悯汰慑婶斐嘘镶炕宦趴绷窘襄珀嚣拚酌浊毓撼嗜扛峭磕翘槽淌栅颓熏瑛颐忖";
const KANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソタチツテトナニヌネノ";
const HANGUL = "가나다라마바사아자차카타파하한국어문장입니다세계";

function cjk(r) {
  let s = "";
  const n = 40 + Math.floor(r() * 120);
  for (let i = 0; i < n; i++) {
    const x = r();
    s += x < 0.7 ? pick(r, CJK) : x < 0.85 ? pick(r, KANA) : x < 0.9 ? pick(r, HANGUL) : pick(r, ["，", "。", "、", "：", "（", "）", " ", "ctxguard", "2025年", "token"]);
  }
  return s + "\n\n";
}

function json(r) {
  const obj = {
    id: `msg_${Math.floor(r() * 1e9).toString(36)}`,
    role: pick(r, ["user", "assistant", "tool", "system"]),
    created: 1_700_000_000 + Math.floor(r() * 1e7),
    usage: { prompt_tokens: Math.floor(r() * 100000), completion_tokens: Math.floor(r() * 4000), ratio: Math.round(r() * 1e4) / 1e4 },
    tags: [pick(r, WORDS), pick(r, WORDS), pick(r, IDENTS)],
    content: sentence(r),
    ok: r() < 0.5,
    parent: r() < 0.3 ? null : `msg_${Math.floor(r() * 1e9).toString(36)}`,
  };
  return JSON.stringify(obj, null, r() < 0.5 ? 2 : undefined) + "\n";
}

const EMOJI = ["😀", "😂", "🥲", "🤖", "🚀", "🔥", "✨", "👍", "👍🏽", "❤️", "🎉", "🧠", "📎", "✅", "❌", "⚠️", "👩‍💻", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇯🇵", "🇫🇷", "🙏🏻", "💡", "📈"];

function emoji(r) {
  let s = "";
  const n = 8 + Math.floor(r() * 20);
  for (let i = 0; i < n; i++) {
    s += r() < 0.4 ? pick(r, EMOJI) + pick(r, EMOJI) : pick(r, WORDS);
    s += r() < 0.7 ? " " : "";
  }
  return s + "\n";
}

/** Appends generated chunks until the UTF-8 size reaches `size`, then cuts at a chunk boundary. */
function fill(r, gens, size) {
  const parts = [];
  let bytes = 0;
  while (bytes < size) {
    const part = pick(r, gens)(r);
    parts.push(part);
    bytes += utf8(part);
  }
  return parts.join("");
}

export function mixed(seed = 0x5eed_0001) {
  const r = rng(seed);
  // weights: prose 4, code 2, CJK 2, JSON 1.5, emoji 1
  const gens = [prose, prose, prose, prose, code, code, cjk, cjk, json, json, json, emoji, emoji];
  return fill(r, gens, SIZE);
}

export function englishProse(seed = 0x5eed_0002) {
  return fill(rng(seed), [prose], SIZE);
}

/**
 * `SIZE` bytes of UTF-8 (cut at a whole character) of characters drawn uniformly from the
 * `span` code points from `first` (all of one UTF-8 length, `width` bytes, in the BMP).
 */
function uniform(seed, first, span, width) {
  const r = rng(seed);
  let s = "";
  const chunk = [];
  for (let i = 0; i < Math.floor(SIZE / width); i++) chunk.push(first + Math.floor(r() * span));
  for (let i = 0; i < chunk.length; i += 8192) s += String.fromCharCode(...chunk.slice(i, i + 8192));
  return s;
}

export const letters = () => uniform(0x5eed_0003, 97, 26, 1);

/** Random CJK Unified Ideographs: letters (`\p{Lo}`) with no space, so one piece of a million bytes. */
export const randomCjk = () => uniform(0x5eed_0005, 0x4e00, 0xa000 - 0x4e00, 3);

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function base64() {
  const r = rng(0x5eed_0004);
  const n = (SIZE / 4) * 3;
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = Math.floor(r() * 256);
  const out = [];
  for (let i = 0; i < n; i += 3) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out.push(B64[v >> 18], B64[(v >> 12) & 63], B64[(v >> 6) & 63], B64[v & 63]);
  }
  return out.join("");
}

export const repeatedA = () => "a".repeat(SIZE);

/** Every input by name, generated once. */
export function all() {
  return { mixed: mixed(), prose: englishProse(), a: repeatedA(), letters: letters(), base64: base64(), cjk: randomCjk() };
}

const isMain = typeof process !== "undefined" && process.argv?.[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href;
if (isMain) {
  const { mkdirSync, writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const out = process.argv[2];
  if (!out) {
    console.error("usage: node corpus.mjs OUTDIR");
    process.exit(2);
  }
  mkdirSync(out, { recursive: true });
  const { real } = await import("./real.mjs");
  const root = (await import("node:url")).fileURLToPath(new URL("../..", import.meta.url));
  const more = { "prose-2": englishProse(0x5eed_0012), "mixed-2": mixed(0x5eed_0011), ...real(root) };
  for (const [name, text] of Object.entries({ ...all(), ...more })) {
    writeFileSync(join(out, `${name}.txt`), text);
    console.log(`${name}.txt: ${utf8(text)} bytes`);
  }
}
